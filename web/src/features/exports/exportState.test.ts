import type { ExportObject } from '@kith/common';
import { describe, expect, it } from 'vitest';
import { exportView, formatSize } from './exportState';

const base: ExportObject = {
  id: 'e1',
  entityType: 'export',
  state: 'ready',
  createdAt: 1000,
  finishedAt: 1010,
  expiresAt: 1010 + 7 * 86400,
  size: 2_500_000,
  downloadUrl: '/api/me/exports/e1/download?exp=1&sig=x',
};

describe('exportView', () => {
  it('offers the button when there is no export', () => {
    expect(exportView({ exports: [], nextAllowedAt: null }, 5000)).toEqual({ kind: 'none', canStart: true });
  });
  it('shows a building export, without the button', () => {
    const building = { ...base, state: 'building' as const, downloadUrl: null, size: null };
    expect(exportView({ exports: [building], nextAllowedAt: 1000 }, 1001)).toEqual({
      kind: 'building',
      canStart: false,
    });
  });
  it('shows a ready export with its link, and the button once the hour has passed', () => {
    expect(exportView({ exports: [base], nextAllowedAt: 4600 }, 2000)).toEqual({
      kind: 'ready',
      export: base,
      canStart: false,
    });
    expect(exportView({ exports: [base], nextAllowedAt: 4600 }, 4600).canStart).toBe(true);
  });
  it('says a failed export failed, and the limit when no export may start yet', () => {
    const failed = { ...base, state: 'failed' as const, downloadUrl: null };
    expect(exportView({ exports: [failed], nextAllowedAt: null }, 2000)).toEqual({ kind: 'failed', canStart: true });
    expect(exportView({ exports: [], nextAllowedAt: 9000 }, 2000)).toEqual({ kind: 'limited', canStart: false });
  });
});

describe('formatSize', () => {
  it('writes kilobytes below a megabyte and megabytes with one decimal above', () => {
    expect(formatSize('en_US'.replace('_', '-'), 2_500_000)).toBe('2.5 MB');
    expect(formatSize('en-US', 1400)).toBe('1 kB');
    expect(formatSize('en-US', 10)).toBe('1 kB');
  });
});
