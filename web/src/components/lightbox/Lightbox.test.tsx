import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { initI18n } from '../../lib/i18n';
import { Lightbox } from './Lightbox.tsx';
import type { LightboxImage, LightboxProps } from './Lightbox.tsx';

// The en_US texts, so the labels and the interpolated counter can be checked.
beforeAll(async () => {
  await initI18n('en_US');
});

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const images: LightboxImage[] = Array.from({ length: 7 }, (_, i) => ({
  src: `https://example.test/files/${i + 1}?size=1600`,
  alt: `Photo ${i + 1}`,
}));

function setup(props: Partial<LightboxProps> = {}) {
  const onIndexChange = vi.fn<(index: number) => void>();
  const onClose = vi.fn<() => void>();
  const all: LightboxProps = { images, index: 2, onIndexChange, onClose, ...props };
  const result = render(<Lightbox {...all} />);
  const dialog = screen.getByRole('dialog');
  const image = screen.getByRole('img');
  // The stage is the image's parent: the dark area around the image.
  const stage = image.parentElement!;
  return { ...result, onIndexChange, onClose, dialog, image, stage, props: all };
}

function scaleOf(image: HTMLElement): number {
  const match = /scale\(([\d.]+)\)/.exec(image.style.transform);
  if (!match?.[1]) throw new Error(`no scale in "${image.style.transform}"`);
  return Number(match[1]);
}

function swipe(target: HTMLElement, from: { x: number; y: number }, to: { x: number; y: number }) {
  fireEvent.pointerDown(target, { pointerId: 1, clientX: from.x, clientY: from.y, button: 0 });
  fireEvent.pointerMove(target, {
    pointerId: 1,
    clientX: (from.x + to.x) / 2,
    clientY: (from.y + to.y) / 2,
  });
  fireEvent.pointerMove(target, { pointerId: 1, clientX: to.x, clientY: to.y });
  fireEvent.pointerUp(target, { pointerId: 1, clientX: to.x, clientY: to.y });
  fireEvent.click(target);
}

describe('Lightbox', () => {
  it('renders the current image and counter in a modal dialog on document.body', () => {
    const { dialog, image, container } = setup({ index: 2 });
    expect(image.getAttribute('src')).toBe(images[2]!.src);
    expect(image.getAttribute('alt')).toBe('Photo 3');
    expect(screen.getByText('3 / 7')).toBeTruthy();
    expect(dialog.getAttribute('aria-modal')).toBe('true');
    expect(dialog.getAttribute('aria-label')).toBe('Picture viewer');
    expect(dialog.parentElement).toBe(document.body);
    expect(container.contains(dialog)).toBe(false);
    for (const name of ['Close', 'Previous picture', 'Next picture', 'Zoom in', 'Zoom out']) {
      expect(screen.getByRole('button', { name })).toBeTruthy();
    }
  });

  it('hides previous and next when there is only one image', () => {
    setup({ images: [images[0]!], index: 0 });
    expect(screen.getByText('1 / 1')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Previous picture' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Next picture' })).toBeNull();
  });

  it('moves with the arrow keys and buttons', () => {
    const { dialog, onIndexChange } = setup({ index: 2 });
    fireEvent.keyDown(dialog, { key: 'ArrowRight' });
    expect(onIndexChange).toHaveBeenLastCalledWith(3);
    fireEvent.keyDown(dialog, { key: 'ArrowLeft' });
    expect(onIndexChange).toHaveBeenLastCalledWith(1);
    fireEvent.click(screen.getByRole('button', { name: 'Next picture' }));
    expect(onIndexChange).toHaveBeenLastCalledWith(3);
    fireEvent.click(screen.getByRole('button', { name: 'Previous picture' }));
    expect(onIndexChange).toHaveBeenLastCalledWith(1);
    expect(onIndexChange).toHaveBeenCalledTimes(4);
  });

  it('does not move past the first image', () => {
    const { dialog, onIndexChange } = setup({ index: 0 });
    fireEvent.keyDown(dialog, { key: 'ArrowLeft' });
    expect(onIndexChange).not.toHaveBeenCalled();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Previous picture' }).disabled).toBe(true);
    fireEvent.keyDown(dialog, { key: 'ArrowRight' });
    expect(onIndexChange).toHaveBeenCalledWith(1);
  });

  it('does not move past the last image', () => {
    const { dialog, onIndexChange } = setup({ index: 6 });
    fireEvent.keyDown(dialog, { key: 'ArrowRight' });
    expect(onIndexChange).not.toHaveBeenCalled();
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Next picture' }).disabled).toBe(true);
    fireEvent.keyDown(dialog, { key: 'ArrowLeft' });
    expect(onIndexChange).toHaveBeenCalledWith(5);
  });

  it('closes on Escape and on the close button', () => {
    const { dialog, onClose } = setup();
    fireEvent.keyDown(dialog, { key: 'Escape' });
    expect(onClose).toHaveBeenCalledTimes(1);
    fireEvent.click(screen.getByRole('button', { name: 'Close' }));
    expect(onClose).toHaveBeenCalledTimes(2);
  });

  it('closes on a backdrop click but not on a click on the image or a button', () => {
    const { image, stage, dialog, onClose } = setup();
    fireEvent.click(image);
    fireEvent.click(screen.getByRole('button', { name: 'Zoom in' }));
    fireEvent.click(screen.getByRole('button', { name: 'Next picture' }));
    expect(onClose).not.toHaveBeenCalled();
    fireEvent.click(stage);
    expect(onClose).toHaveBeenCalledTimes(1);
    fireEvent.click(dialog);
    expect(onClose).toHaveBeenCalledTimes(2);
  });

  it('does not close when a press on the image ends on the stage, as pointer capture makes it', () => {
    const { image, stage, onClose } = setup();
    fireEvent.pointerDown(image, { pointerId: 1, clientX: 200, clientY: 200 });
    fireEvent.pointerUp(stage, { pointerId: 1, clientX: 200, clientY: 200 });
    fireEvent.click(stage);
    expect(onClose).not.toHaveBeenCalled();
    fireEvent.pointerDown(stage, { pointerId: 1, clientX: 10, clientY: 10 });
    fireEvent.pointerUp(stage, { pointerId: 1, clientX: 10, clientY: 10 });
    fireEvent.click(stage);
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('zooms with the buttons and keys, and 0 resets', () => {
    const { dialog, image } = setup();
    const zoomOut = screen.getByRole<HTMLButtonElement>('button', { name: 'Zoom out' });
    expect(scaleOf(image)).toBe(1);
    expect(zoomOut.disabled).toBe(true);

    fireEvent.click(screen.getByRole('button', { name: 'Zoom in' }));
    expect(scaleOf(image)).toBeCloseTo(1.5);
    expect(zoomOut.disabled).toBe(false);
    fireEvent.keyDown(dialog, { key: '+' });
    expect(scaleOf(image)).toBeCloseTo(2.25);
    fireEvent.keyDown(dialog, { key: '-' });
    expect(scaleOf(image)).toBeCloseTo(1.5);
    fireEvent.keyDown(dialog, { key: '=' });
    fireEvent.keyDown(dialog, { key: '=' });
    fireEvent.keyDown(dialog, { key: '=' });
    fireEvent.keyDown(dialog, { key: '=' });
    fireEvent.keyDown(dialog, { key: '=' });
    expect(scaleOf(image)).toBe(5);
    expect(screen.getByRole<HTMLButtonElement>('button', { name: 'Zoom in' }).disabled).toBe(true);

    fireEvent.keyDown(dialog, { key: '0' });
    expect(scaleOf(image)).toBe(1);
  });

  it('zooms with the mouse wheel and toggles 2.5× on double click', () => {
    const { stage, image } = setup();
    fireEvent.wheel(stage, { deltaY: -100 });
    expect(scaleOf(image)).toBeGreaterThan(1);
    fireEvent.wheel(stage, { deltaY: 100 });
    fireEvent.wheel(stage, { deltaY: 100 });
    expect(scaleOf(image)).toBe(1);

    fireEvent.doubleClick(image);
    expect(scaleOf(image)).toBe(2.5);
    fireEvent.doubleClick(image);
    expect(scaleOf(image)).toBe(1);
  });

  it('does not take a drag and a click for a double click', () => {
    const { dialog, image } = setup();
    fireEvent.keyDown(dialog, { key: '+' });
    swipe(image, { x: 100, y: 100 }, { x: 160, y: 100 });
    fireEvent.doubleClick(image);
    expect(scaleOf(image)).toBeCloseTo(1.5);
  });

  it('zooms with a two-finger pinch without navigating', () => {
    const { image, onIndexChange, onClose } = setup();
    fireEvent.pointerDown(image, { pointerId: 1, pointerType: 'touch', clientX: 100, clientY: 200 });
    fireEvent.pointerDown(image, { pointerId: 2, pointerType: 'touch', clientX: 200, clientY: 200 });
    fireEvent.pointerMove(image, { pointerId: 1, pointerType: 'touch', clientX: 50, clientY: 200 });
    fireEvent.pointerMove(image, { pointerId: 2, pointerType: 'touch', clientX: 250, clientY: 200 });
    expect(scaleOf(image)).toBeCloseTo(2);
    fireEvent.pointerUp(image, { pointerId: 1, pointerType: 'touch', clientX: 50, clientY: 200 });
    fireEvent.pointerUp(image, { pointerId: 2, pointerType: 'touch', clientX: 250, clientY: 200 });
    fireEvent.click(image.parentElement!);
    expect(scaleOf(image)).toBeCloseTo(2);
    expect(onIndexChange).not.toHaveBeenCalled();
    expect(onClose).not.toHaveBeenCalled();
  });

  it('resets the zoom when the image changes', () => {
    const { image, rerender, props } = setup({ index: 2 });
    fireEvent.click(screen.getByRole('button', { name: 'Zoom in' }));
    expect(scaleOf(image)).toBeCloseTo(1.5);
    rerender(<Lightbox {...props} index={3} />);
    const next = screen.getByRole('img');
    expect(next.getAttribute('src')).toBe(images[3]!.src);
    expect(scaleOf(next)).toBe(1);
  });

  it('goes to the next image on a left swipe and to the previous one on a right swipe', () => {
    const { image, onIndexChange, onClose } = setup({ index: 2 });
    swipe(image, { x: 300, y: 200 }, { x: 180, y: 210 });
    expect(onIndexChange).toHaveBeenLastCalledWith(3);
    swipe(image, { x: 100, y: 200 }, { x: 220, y: 190 });
    expect(onIndexChange).toHaveBeenLastCalledWith(1);
    expect(onIndexChange).toHaveBeenCalledTimes(2);
    expect(onClose).not.toHaveBeenCalled();
  });

  it('does not navigate on a short, a slow or a zoomed swipe, nor past the ends', () => {
    const { image, stage, onIndexChange, onClose, dialog } = setup({ index: 6 });
    // Past the last image.
    swipe(image, { x: 300, y: 200 }, { x: 100, y: 200 });
    // Too short.
    swipe(image, { x: 300, y: 200 }, { x: 260, y: 200 });
    // Too slow.
    const now = vi.spyOn(performance, 'now').mockReturnValue(1000);
    fireEvent.pointerDown(image, { pointerId: 1, clientX: 100, clientY: 200 });
    now.mockReturnValue(1700);
    fireEvent.pointerMove(image, { pointerId: 1, clientX: 300, clientY: 200 });
    fireEvent.pointerUp(image, { pointerId: 1, clientX: 300, clientY: 200 });
    now.mockRestore();
    // Zoomed: the drag pans instead (and a drag started on the backdrop does not close).
    fireEvent.keyDown(dialog, { key: '+' });
    swipe(stage, { x: 100, y: 200 }, { x: 300, y: 200 });
    expect(onIndexChange).not.toHaveBeenCalled();
    expect(onClose).not.toHaveBeenCalled();
  });

  it('closes on a downward swipe', () => {
    const { image, onClose, onIndexChange } = setup();
    swipe(image, { x: 200, y: 100 }, { x: 210, y: 230 });
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(onIndexChange).not.toHaveBeenCalled();
  });

  it('locks body scrolling while open and restores it on unmount', () => {
    document.body.style.overflow = 'scroll';
    const { unmount } = setup();
    expect(document.body.style.overflow).toBe('hidden');
    unmount();
    expect(document.body.style.overflow).toBe('scroll');
    document.body.style.overflow = '';
  });

  it('moves focus into the dialog and back to the opener on close', () => {
    const opener = document.createElement('button');
    document.body.append(opener);
    opener.focus();
    const { dialog, unmount } = setup();
    expect(document.activeElement).toBe(dialog);
    unmount();
    expect(document.activeElement).toBe(opener);
    opener.remove();
  });

  it('keeps Tab inside the dialog', () => {
    const { dialog } = setup({ index: 2 });
    // Zoom out is disabled at 1×, so the first stop is zoom in.
    const buttons = screen.getAllByRole<HTMLButtonElement>('button').filter((button) => !button.disabled);
    expect(buttons[0]!.getAttribute('aria-label')).toBe('Zoom in');
    const first = buttons[0]!;
    const last = buttons[buttons.length - 1]!;
    last.focus();
    fireEvent.keyDown(last, { key: 'Tab' });
    expect(document.activeElement).toBe(first);
    fireEvent.keyDown(first, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(last);
    dialog.focus();
    fireEvent.keyDown(dialog, { key: 'Tab', shiftKey: true });
    expect(document.activeElement).toBe(last);
  });
});
