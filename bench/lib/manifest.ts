/**
 * `<out>/manifest.json`: what the load runner needs to know about a seeded data folder. The runner
 * reads it; import this type there rather than restating the shape.
 */
import type { ScaleName } from './scale.ts';
import type { SearchTerms } from './search-words.ts';

export interface ManifestUser {
  id: string;
  login: string;
  apiKey: string;
}

export interface Manifest {
  scale: ScaleName;
  seed: number;
  db: 'sqlite' | 'postgres';
  /** Absolute path of the data folder: start the server with DATA_DIR set to it. */
  dataDir: string;
  /** `sqlite:<abs path of kith.db>` or the `postgres://` URL: the server's DATABASE_URL. */
  databaseUrl: string;
  /** The data's "now" in Unix seconds (2026-11-01T00:00:00Z); every stored time is before it. */
  dataNow: number;
  /** The password of every user. */
  password: string;
  /** Seconds spent in each phase, and in total. */
  seedSeconds: Record<string, number>;
  counts: {
    users: number;
    groups: number;
    messages: number;
    comments: number;
    notifications: number;
    bookmarks: number;
    files: number;
    memberships: number;
  };
  /** The first 1,000 users (all of them at small scale). */
  users: ManifestUser[];
  bigGroup: { id: string; name: string; messages: number; members: ManifestUser[] };
  /** A big-group post with exactly 20 direct replies. */
  messageWith20Comments: { id: string };
  /** Token of the big-group post shared by public link: GET /api/public/<token>. */
  publicToken: string;
  /** A big-group image; any thumbnail size of it can be asked for. */
  thumbnailFileId: string;
  /** A big-group member with at least 100 notifications. */
  notificationsUser: ManifestUser & { count: number };
  /** A big-group member with at least 50 bookmarks. */
  bookmarksUser: ManifestUser & { count: number };
  search: SearchTerms;
}
