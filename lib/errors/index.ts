export { ERROR_CODES, type ErrorCode } from "@/lib/errors/codes";
export { ApiError, ValidationError, UnavailableError, ServiceUnavailableError, type ValidationIssue } from "@/lib/errors/api-error";
export { errorBody, errorResponse, toApiError, logUnexpected, jsonResponse } from "@/lib/errors/response";
