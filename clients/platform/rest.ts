import { z } from 'zod';
import { PLATFORM_ERROR_CODES, PlatformFinalError } from './errors';
import type { HttpRequest, PlatformHttp } from './http';
import { joinUrl, pathOf, segment } from './url';

/** Document 1 does not show the account body: only the number the request names is read. */
const accountSchema = z.looseObject({ number: z.string().optional() });
export type AccountRecord = z.infer<typeof accountSchema>;

/** The ordinary (non data-import) REST endpoints the client reads, with token or HTTP Basic credentials. */
export function createRestApi(http: PlatformHttp, v1BaseUrl: string) {
  return {
    /** `GET accounts/<account_number>/`; undefined on 404. */
    async getAccount(accountNumber: string): Promise<AccountRecord | undefined> {
      const req: HttpRequest = { method: 'GET', url: joinUrl(v1BaseUrl, `accounts/${segment(accountNumber)}/`), authenticated: 'rest' };
      const res = await http.request(req);
      if (res.status === 404) return undefined;
      if (res.status !== 200) throw http.unexpected(req, res);
      const parsed = accountSchema.safeParse(res.body);
      if (!parsed.success) throw new PlatformFinalError(PLATFORM_ERROR_CODES.rejected, { method: req.method, path: pathOf(req.url), status: res.status }, 'unexpected account body');
      return parsed.data;
    },
  };
}
