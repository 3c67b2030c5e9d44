import type { Type } from '@nestjs/common';

/**
 * The method names of a controller, its own and those it inherits (a base such as
 * ChargeChildrenController declares the routes of refunds and cancels), each once, in declaration
 * order, own first: what Nest itself scans for routes. The constructor is left out.
 */
export function handlerNamesOf(controller: Type): string[] {
  const names = new Set<string>();
  let prototype = controller.prototype as object | null;
  while (prototype !== null && prototype !== Object.prototype) {
    for (const name of Object.getOwnPropertyNames(prototype)) if (name !== 'constructor') names.add(name);
    prototype = Object.getPrototypeOf(prototype) as object | null;
  }
  return [...names];
}
