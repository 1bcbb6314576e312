/** The spec 2.6 issues a call throws; fails the test when it throws nothing or something else. */
import { expect } from "vitest";
import { ValidationError } from "@/lib/errors";

export function validationIssuesOf(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).detail;
  }
  throw new Error("expected a ValidationError");
}
