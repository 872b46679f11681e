// The names a URL's host takes on this machine's loopback interface (`URL.hostname` form: IPv6 in brackets).
const loopbackHostnames = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether a URL hostname names this machine's loopback (where plain http is acceptable). */
export function isLoopbackHostname(hostname: string): boolean {
  return loopbackHostnames.has(hostname);
}
