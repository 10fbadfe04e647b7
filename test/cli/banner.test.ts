// The start banner: the webhook URL at each address other programs can reach, named for what it is.
import { describe, expect, it } from 'vitest';
import { banner } from '../../src/cli/banner.js';

const PASS = '0123456789abcdef0123456789abcdef';
const lan = {
  lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }],
  eth0: [
    { address: '192.168.1.20', family: 'IPv4', internal: false },
    { address: 'fe80::1', family: 'IPv6', internal: false },
  ],
  docker0: [{ address: '169.254.3.3', family: 'IPv4', internal: false }],
} as unknown as NodeJS.Dict<import('node:os').NetworkInterfaceInfo[]>;

describe('the start banner', () => {
  it('on all addresses: this machine, then the host on its network; the dashboard and /health', () => {
    const text = banner({ url: 'http://127.0.0.1:3468', host: '0.0.0.0', pass: PASS, manual: false, interfaces: lan, inContainer: false });
    expect(text).toBe(
      `\nscanrelay is running. Webhook URL (give it to Sonarr, Radarr, Lidarr: Settings > Connect > Webhook):\n` +
        `  http://127.0.0.1:3468/${PASS}\n` +
        `  http://192.168.1.20:3468/${PASS}   (from your network)\n` +
        `Dashboard: http://127.0.0.1:3468/${PASS}/dashboard\n` +
        `Health: http://127.0.0.1:3468/health\n\n`,
    );
  });

  it('says where the config, the queue and the log are', () => {
    const files = { config: '/config/config.json', queuefile: '/config/queue.db', logfile: '/config/scanrelay.log' };
    const text = banner({ url: 'http://127.0.0.1:3468', host: '127.0.0.1', pass: PASS, manual: false, interfaces: {}, inContainer: false, files });
    expect(text).toMatch(/\nHealth: http:\/\/127\.0\.0\.1:3468\/health\nConfig: \/config\/config\.json\nQueue: \/config\/queue\.db\nLog: \/config\/scanrelay\.log\n\n$/);
    expect(banner({ url: 'http://127.0.0.1:3468', host: '127.0.0.1', pass: PASS, manual: false, files: { ...files, logfile: '-' } })).toContain('\nLog: none (--logfile -): on this console only\n');
  });

  it('calls it the manual-scan URL too only when manual scans are on', () => {
    expect(banner({ url: 'http://127.0.0.1:3468', host: '0.0.0.0', pass: PASS, manual: true, interfaces: {}, inContainer: false })).toContain('Webhook and manual-scan URL:');
  });

  it('in a container, says other containers use the service name; under SERVER_BASE_PATH every URL carries it', () => {
    const text = banner({ url: 'http://127.0.0.1:3468/scanrelay', host: '0.0.0.0', pass: PASS, manual: false, interfaces: lan, inContainer: true });
    expect(text).toContain(`  http://192.168.1.20:3468/scanrelay/${PASS}   (from your network)\n`);
    expect(text).toContain(`http://scanrelay:3468/scanrelay/${PASS}`);
    expect(text).toContain(`Dashboard: http://127.0.0.1:3468/scanrelay/${PASS}/dashboard`);
  });

  it('on one address: only that one', () => {
    const text = banner({ url: 'http://10.0.0.5:3468', host: '10.0.0.5', pass: PASS, manual: false, interfaces: lan, inContainer: true });
    expect(text).not.toContain('192.168.1.20');
    expect(text).not.toContain('service name');
    expect(text).toContain(`  http://10.0.0.5:3468/${PASS}\n`);
  });
});
