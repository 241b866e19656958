/**
 * The picker's emoji (issue 20): the few most used first, then a small curated grid behind "more".
 * Each passes the server's one-emoji rule (common/src/reactions.ts; emoji.test.ts checks).
 */
export const COMMON_EMOJI = ['👍', '❤️', '😂', '😮', '😢', '🎉'] as const;

// prettier-ignore
export const MORE_EMOJI = [
  '😀', '😊', '😍', '🥰', '😘', '😎', '🤔', '😅',
  '🙃', '😴', '🥳', '😭', '😡', '🤯', '🥹', '🤗',
  '👏', '🙏', '🙌', '💪', '👀', '👋', '🤝', '✌️',
  '🔥', '✨', '⭐', '🌈', '☀️', '🌸', '🍀', '🎂',
  '☕', '🍕', '🎶', '📷', '⚽', '🐶', '🐱', '💯',
] as const;
