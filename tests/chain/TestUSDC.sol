// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

/// @notice USDC-like ERC-20 with EIP-3009 transferWithAuthorization, for local payment
/// tests. Name/version are constants (not storage) so the code can be placed at the real
/// Base USDC address with hardhat_setCode; the EIP-712 domain uses block.chainid.
contract TestUSDC {
    string public constant name = "USD Coin";
    string public constant symbol = "USDC";
    string public constant version = "2";
    uint8 public constant decimals = 6;

    bytes32 public constant TRANSFER_WITH_AUTHORIZATION_TYPEHASH =
        keccak256("TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)");

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(bytes32 => bool)) private _authorizationStates;
    uint256 public totalSupply;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);

    function DOMAIN_SEPARATOR() public view returns (bytes32) {
        return keccak256(
            abi.encode(
                keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"),
                keccak256(bytes(name)),
                keccak256(bytes(version)),
                block.chainid,
                address(this)
            )
        );
    }

    function mint(address to, uint256 value) external {
        balanceOf[to] += value;
        totalSupply += value;
        emit Transfer(address(0), to, value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    function authorizationState(address authorizer, bytes32 nonce) external view returns (bool) {
        return _authorizationStates[authorizer][nonce];
    }

    function transferWithAuthorization(
        address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce,
        uint8 v, bytes32 r, bytes32 s
    ) external {
        transferWithAuthorization(from, to, value, validAfter, validBefore, nonce, abi.encodePacked(r, s, v));
    }

    /// @dev Like USDC v2.2 (SignatureChecker): a payer with code is a contract wallet and
    /// answers for its signature itself (ERC-1271); any other payer signs with ECDSA.
    function transferWithAuthorization(
        address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce,
        bytes memory signature
    ) public {
        _checkAuthorization(from, to, value, validAfter, validBefore, nonce);
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", DOMAIN_SEPARATOR(), keccak256(abi.encode(TRANSFER_WITH_AUTHORIZATION_TYPEHASH, from, to, value, validAfter, validBefore, nonce))));
        if (from.code.length > 0) {
            (bool ok, bytes memory ret) = from.staticcall(abi.encodeWithSelector(0x1626ba7e, digest, signature));
            require(ok && ret.length == 32 && abi.decode(ret, (bytes4)) == 0x1626ba7e, "FiatTokenV2: invalid signature");
        } else {
            require(signature.length == 65, "FiatTokenV2: invalid signature length");
            bytes32 r;
            bytes32 s;
            uint8 v;
            assembly {
                r := mload(add(signature, 0x20))
                s := mload(add(signature, 0x40))
                v := byte(0, mload(add(signature, 0x60)))
            }
            require(_recover(digest, v, r, s) == from, "FiatTokenV2: invalid signature");
        }
        _useAuthorization(from, nonce);
        _transfer(from, to, value);
    }

    function _checkAuthorization(address from, address to, uint256, uint256 validAfter, uint256 validBefore, bytes32 nonce) private view {
        require(to != address(0) && from != address(0), "FiatTokenV2: zero address");
        require(block.timestamp > validAfter, "FiatTokenV2: authorization is not yet valid");
        require(block.timestamp < validBefore, "FiatTokenV2: authorization is expired");
        require(!_authorizationStates[from][nonce], "FiatTokenV2: authorization is used or canceled");
    }

    function _recover(bytes32 digest, uint8 v, bytes32 r, bytes32 s) private pure returns (address) {
        if (v < 27) v += 27;
        require(uint256(s) <= 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0, "FiatTokenV2: invalid signature s");
        return ecrecover(digest, v, r, s);
    }

    function _useAuthorization(address from, bytes32 nonce) private {
        _authorizationStates[from][nonce] = true;
        emit AuthorizationUsed(from, nonce);
    }

    function _transfer(address from, address to, uint256 value) private {
        require(balanceOf[from] >= value, "ERC20: transfer amount exceeds balance");
        balanceOf[from] -= value;
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}

/// @notice Multicall3's tryAggregate, placed at the canonical Multicall3 address so the
/// x402 facilitator's diagnostics work on the local chain.
contract Multicall3Lite {
    struct Call {
        address target;
        bytes callData;
    }
    struct Result {
        bool success;
        bytes returnData;
    }

    function tryAggregate(bool requireSuccess, Call[] calldata calls) public payable returns (Result[] memory returnData) {
        returnData = new Result[](calls.length);
        for (uint256 i = 0; i < calls.length; i++) {
            (bool success, bytes memory ret) = calls[i].target.call(calls[i].callData);
            if (requireSuccess) require(success, "Multicall3: call failed");
            returnData[i] = Result(success, ret);
        }
    }
}

/// @notice A minimal contract wallet: a valid signature (ERC-1271) is a type byte 0x01
/// followed by its owner's 65-byte ECDSA signature of the digest (66 bytes, so never
/// mistaken for an account's own signature, as with real smart wallets). Deployed by
/// TestWalletFactory at a CREATE2 address, so a payer can sign before it exists (ERC-6492).
contract TestSmartWallet {
    address public immutable owner;

    constructor(address o) {
        owner = o;
    }

    function isValidSignature(bytes32 hash, bytes calldata sig) external view returns (bytes4) {
        if (sig.length != 66 || sig[0] != 0x01) return 0xffffffff;
        bytes32 r = bytes32(sig[1:33]);
        bytes32 s = bytes32(sig[33:65]);
        uint8 v = uint8(sig[65]);
        if (v < 27) v += 27;
        return ecrecover(hash, v, r, s) == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}

/// @notice Deploys TestSmartWallets at addresses known in advance (CREATE2 on owner and salt).
contract TestWalletFactory {
    function deploy(address owner, bytes32 salt) external returns (address) {
        return address(new TestSmartWallet{salt: salt}(owner));
    }

    function addressOf(address owner, bytes32 salt) external view returns (address) {
        bytes32 code = keccak256(abi.encodePacked(type(TestSmartWallet).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, code)))));
    }
}
