/**
 * How every service is built: with one object naming exactly what it uses (its repositories, the shared
 * EventLog, LockService and QuotaService, the services it asks). createServices (src/services/index.ts)
 * builds each once; a service declares its `…Deps` type beside its class and reads `this.deps`.
 */
export abstract class Service<Deps> {
  protected readonly deps: Deps;

  constructor(deps: Deps) {
    this.deps = deps;
  }
}
