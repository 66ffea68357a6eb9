/** Builds every object's `uri` from the public base address (RENEW_PUBLIC_BASE_URL or the listening address). */
export class UriBuilder {
  constructor(private baseUrl: string) {}

  /** Once listening on a port the system chose (port 0), the default base is known only then. */
  setBaseUrl(baseUrl: string) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
  }

  /** `resource('customers', 12)` → `https://api.example.com/v1/customers/12` */
  resource(collection: string, id: number | string): string {
    return `${this.baseUrl}/v1/${collection}/${id}`;
  }

  path(path: string): string {
    return `${this.baseUrl}${path.startsWith('/') ? '' : '/'}${path}`;
  }
}
