// A wrapper that scrolls sideways when its content (a wide table) cannot fit. A scroll
// container must be reachable by keyboard to be scrollable without a mouse, and a named
// region so screen-reader users know what they landed on; the fade on the side that has
// more content is the visual cue that it scrolls.
import type { ReactNode } from "react";

export function ScrollRegion({ label, children, className = "" }: { label: string; children: ReactNode; className?: string }) {
  return (
    <div className={`table-wrap ${className}`.trim()} role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
