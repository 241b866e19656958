import { ApiError, invalidField, missingField } from './errors.js';
import { parseId } from './ids.js';

/**
 * Typed reads from a JSON request body, following the contract's conventions (§1.3): a missing key
 * and `null` both mean "not given"; a wrong type is `invalid_field`; an id is a string or `{id}`.
 */
export class Body {
  constructor(
    private readonly value: Record<string, unknown>,
    private readonly prefix = '',
  ) {}

  /** Wraps a parsed body; anything that is not a JSON object is `invalid_json`. */
  static of(value: unknown): Body {
    if (value === undefined || value === null) return new Body({});
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new ApiError(400, 'invalid_json', 'The request body must be a JSON object');
    }
    return new Body(value as Record<string, unknown>);
  }

  private path(key: string): string {
    return this.prefix === '' ? key : `${this.prefix}.${key}`;
  }

  /** True when the key is present with a non-null value. */
  has(key: string): boolean {
    return this.value[key] !== undefined && this.value[key] !== null;
  }

  /** A string, or `undefined` when absent or null. */
  string(key: string): string | undefined {
    const v = this.value[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw invalidField(this.path(key), `The field ${this.path(key)} must be a string`);
    return v;
  }

  /** A string that must be present and not blank; `message` is the contract's text for its absence. */
  requiredString(key: string, message?: string): string {
    const v = this.string(key);
    if (v === undefined || v.trim() === '') throw missingField(this.path(key), message);
    return v;
  }

  /** A boolean, or `undefined` when absent or null. */
  boolean(key: string): boolean | undefined {
    const v = this.value[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') throw invalidField(this.path(key), `The field ${this.path(key)} must be true or false`);
    return v;
  }

  /** An integer, or `undefined` when absent or null. */
  integer(key: string): number | undefined {
    const v = this.value[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
      throw invalidField(this.path(key), `The field ${this.path(key)} must be a whole number`);
    }
    return v;
  }

  /**
   * An id given as a string or `{id}`; `undefined` when absent or null, `''` when an empty string
   * was sent (some fields use it to mean "clear"). A malformed id is kept as `'invalid'` for the
   * caller to reject with its own code.
   */
  id(key: string): string | undefined {
    let v = this.value[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'object' && !Array.isArray(v)) v = (v as Record<string, unknown>).id;
    if (v === '') return '';
    if (typeof v !== 'string') throw invalidField(this.path(key), `The field ${this.path(key)} must be an id`);
    return parseId(v) ?? 'invalid';
  }

  /** A nested object, or `undefined` when absent or null. */
  object(key: string): Body | undefined {
    const v = this.value[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) {
      throw invalidField(this.path(key), `The field ${this.path(key)} must be an object`);
    }
    return new Body(v as Record<string, unknown>, this.path(key));
  }

  /** The raw value of a key, for fields with unusual shapes. */
  raw(key: string): unknown {
    return this.value[key];
  }
}
