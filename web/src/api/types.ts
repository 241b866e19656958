// Shapes of the API answers the client reads (docs: ../shared/spec/api-contract.md §2 and §11).

export interface Ref {
  id: string;
  entityType?: string;
}

export interface UserRef extends Ref {
  name: string;
  avatar: Ref | null;
}

export interface GroupRef extends Ref {
  name: string;
}

export interface Me {
  id: string;
  name: string;
  login: string;
  avatar: Ref | null;
  groups: GroupRef[];
  data: { default_group?: string; notification_emails?: string; lang?: string };
}

export interface Group {
  id: string;
  name: string;
  createdAt: number;
  secretKey?: string;
  users: UserRef[];
}

export interface FileObject {
  id: string;
  entityType: 'file';
  type: string;
  status: 'raw' | 'ready';
  contentUrl: string;
  size: number;
  fileIndex: number;
  name: string | null;
  progress: number | null;
  createdAt: number;
}

export interface MessageData {
  title?: string;
  text?: string;
  no_embed?: boolean;
}

export interface Message {
  id: string;
  createdAt: number;
  lastActivityDate: number;
  data: MessageData;
  author: UserRef | null;
  group: GroupRef | null;
  parent: Ref | null;
  lineage: string[];
  children: Ref[];
  files: FileObject[];
  preview: FileObject | null;
  isInFront: boolean;
  isPublic: boolean;
  isDeleted: boolean;
  /** Kith addition: what the caller may do with this message, decided by the server. */
  can: { edit: boolean; delete: boolean; publish: boolean };
}

/** A group-page card (contract §2.5, §11.1): `children` is a count. */
export interface MessagePreview {
  id: string;
  createdAt: number;
  lastActivityDate: number;
  data: MessageData;
  author: UserRef | null;
  group?: GroupRef | null;
  preview: FileObject | null;
  children: number;
  isInFront: boolean;
  isDeleted: boolean;
  truncated?: boolean;
  unread?: boolean;
}

export interface FeedPage {
  messages: MessagePreview[];
  totalItems: number;
  nextCursor: string | null;
}

export type NotificationType =
  'new_message' | 'new_comment' | 'user_joined_group' | 'user_left_group' | 'group_name_change' | 'global_notification';

export interface Notification {
  id: string;
  type: NotificationType;
  createdAt: number;
  read: boolean;
  target: string | null;
  data: { text?: string; previousGroupName?: string; newGroupName?: string };
  fromUser: UserRef | null;
  fromGroup: GroupRef | null;
  fromMessage: Ref | null;
  title: string;
  parentAuthorName: string;
  miniature: (Ref & { contentUrl?: string }) | null;
}

export interface Bookmark {
  id: string;
  createdAt: number;
  message: Ref;
}

export interface Info {
  version: string;
  upload: { image: boolean; video: boolean; pdf: boolean; audio?: boolean };
  default_lang: string;
  allow_email: boolean;
  show: { group_invitation_links: boolean; public_links?: boolean };
  limits?: { text: number; title: number; name: number; passwordMin: number; passwordMax: number };
}

export interface LinkPreview {
  id: string;
  url: string;
  data: {
    title?: string;
    description?: string;
    url?: string;
    providerName?: string;
    'content-type'?: string[];
    code?: string | null;
    exception?: string;
  };
  preview: Ref | '';
}
