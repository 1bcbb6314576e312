/**
 * The agent cards against both specifications, without a server:
 * - A2A 1.0: the specification ships no JSON Schema, only `specification/a2a.proto` (its
 *   `specification/json/a2a.json` is a build artefact of bufbuild's protoc-gen-jsonschema,
 *   not committed). The proto at tag v1.0.0 is the fixture (tests/fixtures/README.md);
 *   the JSON Schema is derived from it here by proto3's JSON mapping (lowerCamelCase
 *   names, `(google.api.field_behavior) = REQUIRED` → required, enums by name, maps as
 *   objects, Struct → object, Value → any JSON, unknown fields refused) and the 1.0 card
 *   validated against its AgentCard. The card must also survive the SDK's own proto-JSON
 *   codec unchanged (AgentCard.fromJSON → toJSON), which drops any field it does not know.
 * - A2A 0.3.0: the published JSON Schema (fixture), against the 0.3 card, which also
 *   lists the 1.0 interfaces.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import Ajv from "ajv";
import { AgentCard } from "@a2a-js/sdk";
import { agentCard, agentCardV03, agentCardV1 } from "@/lib/discovery/cards";

type Schema = Record<string, unknown>;

const camel = (s: string) => s.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

const SCALARS: Record<string, Schema> = {
  string: { type: "string" },
  bytes: { type: "string" },
  bool: { type: "boolean" },
  int32: { type: "integer" },
  int64: { type: ["integer", "string"] },
  double: { type: "number" },
  float: { type: "number" },
  "google.protobuf.Struct": { type: "object" },
  "google.protobuf.Value": {},
  "google.protobuf.Timestamp": { type: "string" },
};

/** JSON Schema `$defs` for every message and enum of a proto3 file (top-level declarations, as a2a.proto has). */
export function protoToJsonSchema(proto: string): Record<string, Schema> {
  const text = proto.replace(/\/\/[^\n]*/g, "");
  const defs: Record<string, Schema> = {};
  for (const m of text.matchAll(/^enum (\w+) \{([^}]*)\}/gm)) {
    defs[m[1]!] = { type: "string", enum: [...m[2]!.matchAll(/(\w+)\s*=\s*\d+/g)].map((e) => e[1]) };
  }
  const type = (t: string): Schema => SCALARS[t] ?? { $ref: `#/$defs/${t}` };
  for (const m of text.matchAll(/^message (\w+) \{([\s\S]*?)^\}/gm)) {
    const properties: Record<string, Schema> = {};
    const required: string[] = [];
    const body = m[2]!.replace(/oneof \w+ \{([^}]*)\}/g, "$1");
    for (const f of body.matchAll(/^\s*(repeated |optional )?(map<\s*\w+\s*,\s*([\w.]+)\s*>|[\w.]+)\s+(\w+)\s*=\s*\d+\s*(\[[^\]]*\])?;/gm)) {
      const [, label, t, mapValue, name, options] = f;
      const name_ = camel(name!);
      properties[name_] = mapValue ? { type: "object", additionalProperties: type(mapValue) } : label === "repeated " ? { type: "array", items: type(t!) } : type(t!);
      if (options?.includes("REQUIRED")) required.push(name_);
    }
    defs[m[1]!] = { type: "object", properties, required, additionalProperties: false };
  }
  return defs;
}

const base = "https://agent.example";

function withoutEmptyLists(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutEmptyLists);
  if (typeof v !== "object" || v === null) return v;
  return Object.fromEntries(Object.entries(v).filter(([, x]) => !(Array.isArray(x) && x.length === 0)).map(([k, x]) => [k, withoutEmptyLists(x)]));
}

describe("A2A 1.0 agent card", () => {
  const defs = protoToJsonSchema(readFileSync(new URL("../fixtures/a2a-1.0.0.proto", import.meta.url), "utf8"));
  const validate = new Ajv({ allErrors: true, strict: false }).compile({ $ref: "#/$defs/AgentCard", $defs: defs });

  it("the derivation reads the proto's AgentCard (its required fields, a map, nested messages)", () => {
    expect(defs.AgentCard?.required).toEqual(["name", "description", "supportedInterfaces", "version", "capabilities", "defaultInputModes", "defaultOutputModes", "skills"]);
    expect((defs.AgentCard?.properties as Schema).securitySchemes).toEqual({ type: "object", additionalProperties: { $ref: "#/$defs/SecurityScheme" } });
    expect(defs.AgentInterface?.required).toEqual(["url", "protocolBinding", "protocolVersion"]);
    // A 0.3 card is not a 1.0 card: the derived schema can fail.
    expect(validate(agentCardV03(base))).toBe(false);
  });

  it("is valid against the AgentCard of the 1.0 proto and unchanged by the SDK's proto-JSON codec", () => {
    const card = agentCardV1(base);
    expect(validate(card), JSON.stringify(validate.errors)).toBe(true);
    // Proto JSON leaves out empty repeated fields; anything else lost or changed would show here.
    expect(AgentCard.toJSON(AgentCard.fromJSON(card))).toEqual(withoutEmptyLists(card));
  });

  it("lists each binding at 1.0 and at 0.3, and is the card a client asking for A2A-Version 1.0 gets", () => {
    const card = agentCardV1(base);
    expect(card.supportedInterfaces).toEqual([
      { url: `${base}/a2a/v1`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${base}/a2a`, protocolBinding: "HTTP+JSON", protocolVersion: "0.3" },
      { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ]);
    expect(agentCard(base, new Request(base, { headers: { "A2A-Version": "1.0" } }))).toEqual(card);
    expect(agentCard(base, new Request(base))).toEqual(agentCardV03(base));
    expect(agentCard(base, new Request(base, { headers: { "A2A-Version": "0.3" } }))).toEqual(agentCardV03(base));
  });
});

describe("A2A 0.3 agent card", () => {
  it("is valid against the published 0.3.0 JSON Schema and carries the 1.0 interfaces too", () => {
    const schema = JSON.parse(readFileSync(new URL("../fixtures/a2a-0.3.0.schema.json", import.meta.url), "utf8"));
    const validate = new Ajv({ strict: false }).compile({ $ref: "#/definitions/AgentCard", definitions: schema.definitions });
    const card = agentCardV03(base);
    expect(validate(card), JSON.stringify(validate.errors)).toBe(true);
    expect(card).toMatchObject({ protocolVersion: "0.3.0", url: `${base}/a2a`, preferredTransport: "HTTP+JSON" });
    expect(card.supportedInterfaces).toEqual(agentCardV1(base).supportedInterfaces);
  });
});
