import type { ReactNode } from "react";

export const metadata = {
  title: "Echo x402 Sentiment — market intelligence for agents",
  description: "Pay-per-call XLM and crypto market intelligence over HTTP and MCP, paid with x402, bundles or a free key.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
