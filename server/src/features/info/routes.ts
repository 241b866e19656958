import { LIMITS } from '@kith/common';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { API_VERSION } from '../../http/openapi.js';
import { route } from '../../http/route.js';
import { uploadAvailable } from '../../media/tools.js';

/** GET /api/info (docs/api §3.1): what this instance offers, for clients to adapt. */
export function infoRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { config } = ctx;
  route(app, 'GET /api/info', () => ({
    version: API_VERSION,
    compat: 'zusam-0.5.6',
    // The operator's switches, and for video, audio and PDF the tools that process them (checked once).
    upload: {
      image: uploadAvailable(config, 'image'),
      video: uploadAvailable(config, 'video'),
      audio: uploadAvailable(config, 'audio'),
      pdf: uploadAvailable(config, 'pdf'),
    },
    default_lang: config.defaultLang,
    allow_email: config.allowEmail,
    // link_previews: whether clients should ask for link cards at all (LINK_PREVIEWS).
    show: {
      group_invitation_links: config.showInvitationLinks,
      public_links: config.publicLinks,
      link_previews: config.linkPreviews,
    },
    // Whether members may react with an emoji (REACTIONS_ENABLED, issue 20).
    reactions: config.reactions,
    // Whether the server sends Web Push notifications (PUSH_ENABLED, issue 21).
    push: config.push.enabled,
    limits: {
      text: LIMITS.text,
      title: LIMITS.title,
      name: LIMITS.name,
      passwordMin: LIMITS.passwordMin,
      passwordMax: LIMITS.passwordMax,
      filesPerMessage: LIMITS.filesPerMessage,
      uploadBytes: { ...config.uploadMaxBytes },
    },
  }));
}
