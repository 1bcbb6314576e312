"use client";
// Moves focus to a result when it appears (a bought token, a claimed key, a paid call's
// data) and scrolls it into view: otherwise focus falls to the page body when the button
// that was pressed goes away, and on a phone the result lands below the fold.
import { useEffect, useRef } from "react";

/** A ref for the element (give it tabIndex={-1}) to focus once `shown` is truthy. */
export function useFocusOnShow<T extends HTMLElement>(shown: unknown) {
  const ref = useRef<T>(null);
  useEffect(() => {
    if (!shown || !ref.current) return;
    ref.current.focus({ preventScroll: true });
    ref.current.scrollIntoView({ block: "start" });
  }, [shown]);
  return ref;
}
