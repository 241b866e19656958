import { describe, expect, it } from 'vitest';
import { stagePoint, stageSizes } from './stage.ts';

/** An element whose box is at (left, top) with the given size. */
function boxAt(left: number, top: number, width: number, height: number): HTMLElement {
  const element = document.createElement('div');
  element.getBoundingClientRect = () => DOMRect.fromRect({ x: left, y: top, width, height });
  Object.defineProperty(element, 'clientWidth', { value: width });
  Object.defineProperty(element, 'clientHeight', { value: height });
  Object.defineProperty(element, 'offsetWidth', { value: width });
  Object.defineProperty(element, 'offsetHeight', { value: height });
  return element;
}

describe('stagePoint', () => {
  it('measures client coordinates from the stage centre', () => {
    const stage = boxAt(100, 50, 800, 600);
    expect(stagePoint(stage, 500, 350)).toEqual({ x: 0, y: 0 });
    expect(stagePoint(stage, 100, 50)).toEqual({ x: -400, y: -300 });
    expect(stagePoint(stage, 650, 400)).toEqual({ x: 150, y: 50 });
  });

  it('gives the centre when there is no stage yet', () => {
    expect(stagePoint(null, 10, 20)).toEqual({ x: 0, y: 0 });
  });
});

describe('stageSizes', () => {
  it('reads the image and stage layout sizes, zero for a missing element', () => {
    expect(stageSizes(boxAt(0, 0, 800, 600), boxAt(0, 0, 400, 300))).toEqual({
      content: { width: 400, height: 300 },
      viewport: { width: 800, height: 600 },
    });
    expect(stageSizes(null, null)).toEqual({ content: { width: 0, height: 0 }, viewport: { width: 0, height: 0 } });
  });
});
