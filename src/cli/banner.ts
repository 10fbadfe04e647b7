// The lines `scanrelay server` prints on the console at every start (never into the log file: they hold the
// secret): the webhook URL at each address other programs can reach, the dashboard, /health, and where the
// config, the queue and the log are.
import { existsSync } from 'node:fs';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';

export interface BannerFacts {
  /** What the server listens on, as listen() answered (`http://127.0.0.1:3468` + SERVER_BASE_PATH when on all addresses). */
  url: string;
  /** SERVER_IP or --host. */
  host: string;
  /** SERVER_PASS, or what to show instead (a secret kept in a file stays there). */
  pass: string;
  /** SERVER_ALLOW_MANUAL_SCAN: only then is the URL also the manual page. */
  manual: boolean;
  /** The machine's interfaces (os.networkInterfaces()), for the addresses of this host on its networks. */
  interfaces?: NodeJS.Dict<NetworkInterfaceInfo[]>;
  /** Running in a container: other containers reach it by its service name, not by any address printed here. */
  inContainer?: boolean;
  /** The files this run uses (absolute paths; the log '-' when there is none). */
  files?: { config: string; queuefile: string; logfile: string };
}

const ALL_ADDRESSES = new Set(['0.0.0.0', '::', '']);

/** The host's own IPv4 addresses on its networks (not loopback or link-local), at most four. */
function networkAddresses(interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>): string[] {
  return Object.values(interfaces)
    .flatMap((list) => list ?? [])
    .filter((i) => i.family === 'IPv4' && !i.internal && !i.address.startsWith('169.254.'))
    .map((i) => i.address)
    .slice(0, 4);
}

export function banner(facts: BannerFacts): string {
  const u = new URL(facts.url);
  const base = u.pathname.replace(/\/$/, '');
  const at = (host: string) => `${u.protocol}//${host}:${u.port}${base}`;
  const lines: string[] = [];
  const title = facts.manual ? 'Webhook and manual-scan URL' : 'Webhook URL (give it to Sonarr, Radarr, Lidarr: Settings > Connect > Webhook)';
  lines.push(`scanrelay is running. ${title}:`);
  lines.push(`  ${facts.url}/${facts.pass}`);
  if (ALL_ADDRESSES.has(facts.host)) {
    for (const address of networkAddresses(facts.interfaces ?? networkInterfaces())) lines.push(`  ${at(address)}/${facts.pass}   (from your network)`);
    const inContainer = facts.inContainer ?? (existsSync('/.dockerenv') || existsSync('/run/.containerenv'));
    if (inContainer) lines.push(`  Other containers on the same network use the service name: http://scanrelay:${u.port}${base}/${facts.pass} (if the service is called scanrelay)`);
  }
  lines.push(`Dashboard: ${facts.url}/${facts.pass}/dashboard`);
  lines.push(`Health: ${facts.url}/health`);
  if (facts.files) {
    const f = facts.files;
    lines.push(`Config: ${f.config}`);
    lines.push(`Queue: ${f.queuefile}`);
    lines.push(`Log: ${f.logfile === '-' ? 'none (--logfile -): on this console only' : f.logfile}`);
  }
  return `\n${lines.join('\n')}\n\n`;
}
