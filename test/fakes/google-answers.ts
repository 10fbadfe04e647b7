// What Google's token endpoint answers, as the fakes hand it out
// (https://developers.google.com/identity/protocols/oauth2/native-app). Kept in code rather than as JSON files so
// that no file shaped like a token is ever tracked. Every value is made up for the tests.
export const googleAnswers = {
  /** Authorization-code exchange. */
  token: {
    access_token: 'ya29.scanrelay-fixture-access',
    expires_in: 3599,
    refresh_token: '1//scanrelay-fixture-refresh',
    scope: 'https://www.googleapis.com/auth/drive.readonly',
    token_type: 'Bearer',
  },
  /** refresh_token grant: no new refresh token. */
  refresh: {
    access_token: 'ya29.scanrelay-fixture-refreshed',
    expires_in: 3599,
    scope: 'https://www.googleapis.com/auth/drive.readonly',
    token_type: 'Bearer',
  },
  /** JWT-bearer grant of a service account. */
  serviceAccount: { access_token: 'ya29.c.scanrelay-fixture-service-account', expires_in: 3599, token_type: 'Bearer' },
  invalidGrant: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' },
} as const;

/** A copy the caller may change. */
export const googleAnswer = <K extends keyof typeof googleAnswers>(kind: K): Record<string, unknown> => ({ ...googleAnswers[kind] });
