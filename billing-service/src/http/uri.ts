/** Builds every object's `uri` from the public base address (RENEW_PUBLIC_BASE_URL or the listening address). */
export class UriBuilder {
  constructor(private readonly baseUrl: string) {}

  /** `resource('customers', 12)` → `https://api.example.com/v1/customers/12` */
  resource(collection: string, id: number | string): string {
    return `${this.baseUrl}/v1/${collection}/${id}`;
  }

  path(path: string): string {
    return `${this.baseUrl}${path.startsWith('/') ? '' : '/'}${path}`;
  }
}
