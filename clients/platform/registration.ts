import { z } from 'zod';
import { PLATFORM_ERROR_CODES, PlatformFinalError } from './errors';
import type { HttpRequest, PlatformHttp } from './http';
import type { RawResponse } from './transport';
import { joinUrl, pathOf, segment } from './url';

/**
 * The switch's two endpoints (the contract's `post_account_import` and `query` tags): the meter
 * points' statuses, and the registration flows. Both answer 404 for an account the tenant does not
 * hold (only staged) or one without meter points; the caller decides what that means.
 */

const meterPointStatusSchema = z.object({ mpxn: z.string(), status: z.string() });
const flowAnswerSchema = z.object({
  external_account_number: z.string().optional(),
  import_supplier_code: z.string().optional(),
  meter_points: z.array(
    z.object({ mpxn: z.string(), status: z.enum(['REGISTRATION_FLOW_SUCCESS', 'REGISTRATION_FLOW_ERROR']), error_detail: z.string().optional() }),
  ),
});

export type MeterPointStatusRead = z.infer<typeof meterPointStatusSchema>;
export type FlowAnswer = { mpxn: string; sent: true } | { mpxn: string; sent: false; errorDetail: string };

export function createRegistrationApi(http: PlatformHttp, v1BaseUrl: string) {
  const rejected = (req: HttpRequest, res: RawResponse, why: string) =>
    new PlatformFinalError(PLATFORM_ERROR_CODES.rejected, { method: req.method, path: pathOf(req.url), status: res.status }, why);
  const route = (what: string, supplier: string, ext: string) => joinUrl(v1BaseUrl, `data-import/${what}/${segment(supplier)}/${segment(ext)}/`);

  return {
    /** `GET meterpoint-statuses-for-account/…`: each point's status; undefined on 404 (no account, or no meter points). */
    async meterPointStatuses(supplier: string, ext: string): Promise<MeterPointStatusRead[] | undefined> {
      const req: HttpRequest = { method: 'GET', url: route('meterpoint-statuses-for-account', supplier, ext), authenticated: true };
      const res = await http.request(req);
      if (res.status === 404) return undefined;
      if (res.status !== 200) throw http.unexpected(req, res);
      const parsed = z.array(meterPointStatusSchema).safeParse(res.body);
      if (!parsed.success) throw rejected(req, res, 'meter point statuses are not a list of {mpxn, status}');
      return parsed.data;
    },

    /** `POST send-registration-flows/…`: the platform's answer per MPxN; undefined on 404. */
    async sendRegistrationFlows(supplier: string, ext: string): Promise<FlowAnswer[] | undefined> {
      const req: HttpRequest = { method: 'POST', url: route('send-registration-flows', supplier, ext), authenticated: true };
      const res = await http.request(req);
      if (res.status === 404) return undefined;
      if (res.status !== 200) throw http.unexpected(req, res);
      const parsed = flowAnswerSchema.safeParse(res.body);
      if (!parsed.success) throw rejected(req, res, 'registration flow answer is not {meter_points: [{mpxn, status}]}');
      return parsed.data.meter_points.map((p) =>
        p.status === 'REGISTRATION_FLOW_SUCCESS' ? { mpxn: p.mpxn, sent: true } : { mpxn: p.mpxn, sent: false, errorDetail: p.error_detail ?? '' },
      );
    },
  };
}
