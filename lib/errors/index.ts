export { ERROR_CODES, type ErrorCode } from "@/lib/errors/codes";
export { ApiError, ValidationError, UnavailableError, type ValidationIssue } from "@/lib/errors/api-error";
export { errorBody, errorResponse, toApiError, jsonResponse } from "@/lib/errors/response";
