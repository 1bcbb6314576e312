"use client";
// Copies a value to the clipboard and says so in a live region; falls back to selecting
// the text when the Clipboard API is unavailable (plain-HTTP origins).
import { useState } from "react";

export function CopyButton({ value, label = "Copy", className = "secondary small" }: { value: string; label?: string; className?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  async function copy() {
    try {
      await navigator.clipboard.writeText(value);
      setState("copied");
    } catch {
      setState("failed");
    }
    setTimeout(() => setState("idle"), 2500);
  }
  return (
    <span className="row">
      <button type="button" className={className} onClick={copy}>
        {label}
      </button>
      <span role="status" className="small muted">
        {state === "copied" ? "Copied" : state === "failed" ? "Copy failed — select the text and copy it" : ""}
      </span>
    </span>
  );
}
