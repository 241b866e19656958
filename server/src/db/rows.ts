import type { Selectable } from 'kysely';
import type { FilesTable, GroupsTable, MembershipsTable, MessagesTable, UsersTable } from './schema.js';

// The rows the features pass each other, typed once here beside the tables, so that a feature
// needing another's row type does not import that feature.

export type UserRow = Selectable<UsersTable>;
export type GroupRow = Selectable<GroupsTable>;
export type MessageRow = Selectable<MessagesTable>;
export type FileRow = Selectable<FilesTable>;
/** A row of a group's member list, as the access rules need it. */
export type Membership = Pick<Selectable<MembershipsTable>, 'group_id' | 'user_id'>;
