/**
 * Stable error codes of the API (docs/api §1.5). Clients branch on these, never on the text.
 */
export const ERROR_CODES = [
  'invalid_json',
  'missing_field',
  'invalid_field',
  'invalid_name',
  'invalid_email',
  'invalid_password',
  'empty_message',
  'text_too_long',
  'title_too_long',
  'too_many_files',
  'invalid_file',
  'invalid_parent',
  'invalid_reaction',
  'invalid_avatar',
  'invite_key_required',
  'invalid_invite_key',
  'invalid_reset_key',
  'invalid_token',
  'invalid_url',
  'missing_file',
  'unsupported_image_size',
  'auth_required',
  'invalid_api_key',
  'invalid_credentials',
  'forbidden',
  'not_author',
  'feature_disabled',
  'url_expired',
  'not_found',
  'route_not_found',
  'method_not_allowed',
  'login_taken',
  'payload_too_large',
  'file_too_large',
  'unsupported_file_type',
  'too_many_requests',
  'internal_error',
  'file_not_ready',
  'email_disabled',
  'invalid_request',
  'request_timeout',
  'headers_too_large',
  'service_unavailable',
  'not_pinnable',
  'too_many_pins',
  // Web Push (issue 21, docs/api §11.9)
  'invalid_push_subscription',
  'too_many_push_subscriptions',
  // Exports (issue 22, docs/api §11.12)
  'export_in_progress',
  'export_limit_reached',
  // Storage quotas and administration (issue 22, part 4)
  'quota_exceeded',
  'storage_full',
  'account_disabled',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** The error envelope every failed API call answers with. */
export interface ApiErrorBody {
  code: ErrorCode;
  message: string;
  error: string;
  field?: string;
}
