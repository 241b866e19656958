import { Type, type Static } from 'typebox';

/** GET /api/links/by_url (docs/api §2.9, §7.5): the link preview object. */

const Id = Type.String({ description: 'lowercase UUID v4' });
const Seconds = Type.Integer({ description: 'Unix time in seconds' });

/** What Kith read from the page; keys that were not found are absent. */
export const LinkPreviewData = Type.Object(
  {
    title: Type.Optional(Type.String()),
    description: Type.Optional(Type.String({ description: 'at most 500 characters' })),
    url: Type.Optional(Type.String({ description: 'the canonical URL the page declares' })),
    providerName: Type.Optional(Type.String()),
    'content-type': Type.Optional(
      Type.Array(Type.String(), { description: 'Content-Type header values; direct images, video, audio' }),
    ),
    code: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'one sandboxed <iframe> Kith builds for an allow-listed provider, never from the page',
      }),
    ),
    image: Type.Optional(Type.String({ description: 'the remote preview image URL the page declares' })),
    origin: Type.String({ description: 'the URL as requested' }),
    exception: Type.Optional(Type.String({ description: 'short reason when the fetch failed' })),
  },
  { description: 'after a failed fetch: only origin and exception' },
);
export type LinkPreviewData = Static<typeof LinkPreviewData>;

export const LinkPreview = Type.Object({
  id: Id,
  entityType: Type.Literal('link'),
  url: Type.String({ description: 'the URL as requested' }),
  updatedAt: Seconds,
  data: LinkPreviewData,
  preview: Type.Union([Type.Object({ id: Id, entityType: Type.Literal('file') }), Type.Literal('')], {
    description: 'the stored preview image, or "" when there is none',
  }),
});
export type LinkPreview = Static<typeof LinkPreview>;
