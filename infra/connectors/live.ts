// The live connectors, configured from the environment: one factory per platform for the registry, each
// with its credentials, the LinkedIn API version and the publishing call timeout.
import type { Kysely } from 'kysely';
import type { Platform } from '../../domain/shared/platforms.js';
import type { SocialAccountEnv } from './settings.js';
import type { TokenCipher } from '../crypto/token-cipher.js';
import type { PlatformConnector } from './port.js';

/**
 * Loaded on demand: the live connectors pull in platform SDKs (`@atproto/api` alone takes over a second to
 * import), which the sandbox default never needs.
 */
export async function liveConnectorFactories(options: {
  env: SocialAccountEnv;
  /** A platform call taking longer has an unknown outcome (PUBLISH_CALL_TIMEOUT_MS). */
  callTimeoutMs: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  db: Kysely<any>;
  cipher: TokenCipher;
  publicBaseUrl: string;
}): Promise<Record<Platform, () => PlatformConnector>> {
  const [
    { createXConnector },
    { createBlueskyConnector },
    { createLinkedInConnector },
    { createThreadsConnector },
    { createFacebookConnector },
    { createInstagramConnector },
    { createYouTubeConnector },
    { createTikTokConnector },
    { createRedditConnector },
  ] = await Promise.all([
    import('./x/x-connector.js'),
    import('./bluesky/bluesky-connector.js'),
    import('./linkedin/linkedin-connector.js'),
    import('./threads/threads-connector.js'),
    import('./facebook/facebook-connector.js'),
    import('./instagram/instagram-connector.js'),
    import('./youtube/youtube-connector.js'),
    import('./tiktok/tiktok-connector.js'),
    import('./reddit/reddit-connector.js'),
  ]);
  const { env } = options;
  const timeoutMs = options.callTimeoutMs;
  return {
    x: () => createXConnector({ clientId: env.X_CLIENT_ID, clientSecret: env.X_CLIENT_SECRET, timeoutMs }),
    bluesky: () =>
      createBlueskyConnector({
        publicBaseUrl: options.publicBaseUrl,
        db: options.db,
        cipher: options.cipher,
        timeoutMs,
      }),
    linkedin: () =>
      createLinkedInConnector({
        clientId: env.LINKEDIN_CLIENT_ID,
        clientSecret: env.LINKEDIN_CLIENT_SECRET,
        apiVersion: env.LINKEDIN_API_VERSION,
        timeoutMs,
      }),
    threads: () =>
      createThreadsConnector({ appId: env.THREADS_APP_ID, appSecret: env.THREADS_APP_SECRET, timeoutMs }),
    facebook: () =>
      createFacebookConnector({ appId: env.FACEBOOK_APP_ID, appSecret: env.FACEBOOK_APP_SECRET, timeoutMs }),
    instagram: () =>
      createInstagramConnector({
        appId: env.INSTAGRAM_APP_ID,
        appSecret: env.INSTAGRAM_APP_SECRET,
        timeoutMs,
      }),
    youtube: () =>
      createYouTubeConnector({
        clientId: env.GOOGLE_CLIENT_ID,
        clientSecret: env.GOOGLE_CLIENT_SECRET,
        timeoutMs,
      }),
    tiktok: () =>
      createTikTokConnector({
        clientKey: env.TIKTOK_CLIENT_KEY,
        clientSecret: env.TIKTOK_CLIENT_SECRET,
        timeoutMs,
      }),
    reddit: () =>
      createRedditConnector({
        clientId: env.REDDIT_CLIENT_ID,
        clientSecret: env.REDDIT_CLIENT_SECRET,
        userAgent: env.REDDIT_USER_AGENT,
        timeoutMs,
      }),
  };
}
