// Picks the token source GOOGLE configures: a service account, an rclone remote's token, or authorize's token file.
import type { Clock } from '../clock.js';
import type { Logger } from '../log/logger.js';
import { RcloneTokenSource, defaultRcloneConfigPath } from './rclone-token.js';
import { ServiceAccountTokenSource } from './service-account-source.js';
import { DRIVE_SCOPE, resolveFromConfig, signInMethod, tokenFilePath, type GoogleSettings } from './settings.js';
import { TokenFileSource, type AccessTokenSource } from './token-store.js';

export function createTokenSource(
  s: GoogleSettings,
  configDir: string,
  deps: { clock: Clock; logger: Logger; fetch?: typeof fetch },
): AccessTokenSource {
  const common = { tokenUrl: s.TOKEN_URL, clock: deps.clock, logger: deps.logger, fetch: deps.fetch };
  switch (signInMethod(s)) {
    case 'service-account':
      return new ServiceAccountTokenSource({ ...common, keyFile: resolveFromConfig(configDir, s.SERVICE_ACCOUNT_FILE.trim()), scope: DRIVE_SCOPE });
    case 'rclone': {
      const conf = s.RCLONE_CONFIG.trim() ? resolveFromConfig(configDir, s.RCLONE_CONFIG.trim()) : defaultRcloneConfigPath();
      return new RcloneTokenSource(conf, s.RCLONE_REMOTE.trim(), { ...common, clientId: s.CLIENT_ID, clientSecret: s.CLIENT_SECRET });
    }
    case 'oauth':
      return new TokenFileSource(tokenFilePath(s, configDir), { ...common, clientId: s.CLIENT_ID, clientSecret: s.CLIENT_SECRET });
  }
}
