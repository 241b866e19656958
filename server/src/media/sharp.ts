import type Sharp from 'sharp';

let loading: Promise<typeof Sharp> | null = null;

/**
 * sharp, loaded on first use. Loading it maps libvips and adds about 22 MB to the server's resident
 * memory (bench/README.md), which a server that has made no picture since it started does not need:
 * thumbnails already made are served from the store without it.
 */
export function loadSharp(): Promise<typeof Sharp> {
  loading ??= import('sharp').then((module) => module.default);
  return loading;
}
