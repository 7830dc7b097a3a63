import type { HttpCore } from '../core/http.js';

/** A group of the service's operations, sharing the client's HTTP core. */
export abstract class Resource {
  protected readonly core: HttpCore;

  constructor(core: HttpCore) {
    this.core = core;
  }
}
