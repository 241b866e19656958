import { cleanup, render } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { Snippet } from './Snippet';

afterEach(cleanup);

describe('Snippet', () => {
  it('marks the matches with <mark> and shows markup from the server as text', () => {
    const { container } = render(
      <Snippet snippet={{ text: '<img src=x onerror=alert(1)> café <b>noir</b>', highlights: [[29, 33]] }} />,
    );
    expect(container.querySelector('img')).toBeNull();
    expect(container.querySelector('b')).toBeNull();
    expect([...container.querySelectorAll('mark')].map((mark) => mark.textContent)).toEqual(['café']);
    expect(container.textContent).toBe('<img src=x onerror=alert(1)> café <b>noir</b>');
  });
});
