// Structured, levelled logging to stderr: one line per event, `--verbosity 0–5`
// (0 silent, 1 error, 2 warn, 3 info, 4 debug, 5 trace).

export const LogLevel = { error: 1, warn: 2, info: 3, debug: 4, trace: 5 } as const;
export type LogLevel = keyof typeof LogLevel;

export interface Logger {
  error(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  debug(msg: string, fields?: Record<string, unknown>): void;
  trace(msg: string, fields?: Record<string, unknown>): void;
}

function format(fields: Record<string, unknown> | undefined): string {
  if (!fields) return '';
  let out = '';
  for (const [k, v] of Object.entries(fields)) {
    const text = typeof v === 'bigint' ? v.toString() : typeof v === 'string' ? v : JSON.stringify(v);
    out += ` ${k}=${/\s/.test(text) ? JSON.stringify(text) : text}`;
  }
  return out;
}

export function createLogger(verbosity: number, write: (line: string) => void = (l) => process.stderr.write(l)): Logger {
  const at = (level: LogLevel) => (msg: string, fields?: Record<string, unknown>) => {
    if (LogLevel[level] > verbosity) return;
    write(`${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${msg}${format(fields)}\n`);
  };
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug'), trace: at('trace') };
}

/** `base` with info, debug and trace lines dropped while `switch.enabled` is false (anvil_setLoggingEnabled). */
export function switchableLogger(base: Logger, state: { enabled: boolean }): Logger {
  const gated = (write: Logger['info']): Logger['info'] => (msg, fields) => {
    if (state.enabled) write(msg, fields);
  };
  return { error: base.error, warn: base.warn, info: gated(base.info), debug: gated(base.debug), trace: gated(base.trace) };
}
