/** Where a probe connects (the pod), as opposed to the host the card URL names. */
export interface DialTarget {
  /** IP literal or host name to connect to. */
  address: string;
  port: number;
}

export function hostPort(address: string, port: number): string {
  return address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
}
