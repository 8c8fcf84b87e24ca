// Argument checks shared by the model and the estimators: every number that
// enters Program 1, Eq. 1 or an estimator must be finite and in range, and a
// bad one is reported as a RangeError naming the parameter and the value.

/** Formats a value for an error message so NaN, Infinity and strings stay visible. */
function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

/** Throws unless `value` is a finite number greater than zero. */
export function requirePositive(name: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RangeError(`${name} must be a finite number greater than 0, got ${show(value)}`);
  }
}

/** Throws unless `value` is a finite number greater than or equal to zero. */
export function requireNonNegative(name: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new RangeError(`${name} must be a finite number >= 0, got ${show(value)}`);
  }
}

/** Throws unless `value` is an integer greater than or equal to `min` (default 1). */
export function requireInteger(name: string, value: number, min = 1): void {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new RangeError(`${name} must be an integer >= ${min}, got ${show(value)}`);
  }
}

/** Throws unless `value` lies strictly between 0 and 1. */
export function requireOpenUnitInterval(name: string, value: number): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value >= 1) {
    throw new RangeError(`${name} must be strictly between 0 and 1, got ${show(value)}`);
  }
}
