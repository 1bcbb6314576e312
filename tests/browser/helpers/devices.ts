/**
 * The two widths every page is checked and photographed at. playwright.config.ts builds
 * its projects from these, and specs use them (test.use) to repeat a flow at phone width
 * inside the desktop project where it must share a worker with the other chain tests.
 */
export const DEVICES = {
  desktop: { viewport: { width: 1280, height: 800 } },
  phone: { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 1 },
} as const;

export type DeviceName = keyof typeof DEVICES;

export const DEVICE_NAMES = Object.keys(DEVICES) as DeviceName[];
