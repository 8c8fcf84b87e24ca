/**
 * Console logging for data-plane decisions (mode chosen, fallbacks,
 * cancellations), prefixed so a page author can filter for them. Errors are
 * always printed; informational lines only when enabled.
 */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export function createLogger(enabled: boolean): Logger {
  const prefix = '[sprint]';
  return {
    info: (m) => {
      if (enabled) console.info(prefix, m);
    },
    warn: (m) => console.warn(prefix, m),
    error: (m) => console.error(prefix, m),
  };
}
