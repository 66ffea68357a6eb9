/** One JSON request to the billing API under test; a non-2xx answer throws with its status and the start of its body. */
export async function callApi(url: string, authorization: string, method: string, pathname: string, body?: unknown): Promise<any> {
  const res = await fetch(new URL(pathname, url), {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${pathname}: ${res.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}
