import { dayOf } from './formats';
import { type Emit, type Obj, type Path, given, objects, present } from './rule-kit';

/**
 * The stateless `x-validators` of `payment_adequacy_changes` (PaymentAdequacyChange),
 * `payment_plans` (PaymentPlanPayment), `contribution_agreements` (ContributionSchemeAgreement,
 * ContributionSchemePeriod), `commission_contracts` (EnergyCommissionContract) and
 * `partner_organisations` (PartnerOrganisation). Overlaps use the loose reading of the payment
 * schedule rules (rules-payments.ts): a shared boundary day is left to the platform.
 */

const int = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) ? v : undefined);
const instant = (v: unknown): number | undefined => (typeof v === 'string' ? Date.parse(v) || undefined : undefined);

function adequacyRules(account: Obj, today: string, emit: Emit) {
  const changes = objects(account.payment_adequacy_changes);
  if (changes.length > 0 && given(account.last_payment_review_date)) {
    emit(
      'payment_adequacy_changes_and_last_payment_review_date_provided',
      ['payment_adequacy_changes'],
      'Give payment_adequacy_changes or last_payment_review_date, not both.',
    );
  }
  for (const [c, i] of changes) {
    const at: Path = ['payment_adequacy_changes', i];
    const [all, elec, gas] = [int(c.average_monthly_charge), int(c.average_monthly_elec_charge), int(c.average_monthly_gas_charge)];
    if (all !== undefined && elec !== undefined && gas !== undefined && all !== elec + gas) {
      emit(
        'payment_adequacy_monthly_charges_unequal',
        [...at, 'average_monthly_charge'],
        'average_monthly_charge must equal average_monthly_elec_charge + average_monthly_gas_charge.',
      );
    }
    const created = dayOf(c.created_at);
    const applied = dayOf(c.applied_at);
    if (created !== undefined && created > today) emit('payment_adequacy_invalid_dates', [...at, 'created_at'], 'created_at may not be in the future.');
    if (applied !== undefined && applied > today) emit('payment_adequacy_invalid_dates', [...at, 'applied_at'], 'applied_at may not be in the future.');
    const [createdAt, appliedAt] = [instant(c.created_at), instant(c.applied_at)];
    if (createdAt !== undefined && appliedAt !== undefined && appliedAt < createdAt)
      emit('payment_adequacy_invalid_dates', [...at, 'applied_at'], 'applied_at may not be before created_at.');
    const reason = present(c.should_not_be_applied_reason);
    if (!given(c.applied_at) && !reason)
      emit('payment_adequacy_missing_reason', [...at, 'should_not_be_applied_reason'], 'A change that was not applied needs should_not_be_applied_reason.');
    if (given(c.applied_at) && reason)
      emit('payment_adequacy_should_not_have_been_applied', [...at, 'applied_at'], 'A change with should_not_be_applied_reason may not have applied_at.');
  }
}

function planRules(account: Obj, emit: Emit) {
  for (const [plan, i] of objects(account.payment_plans)) {
    for (const [p, k] of objects(plan.payments)) {
      const total = int(p.total_amount);
      const parts = objects(p.amount_components).map(([c]) => int(c.amount));
      if (total === undefined || parts.some((a) => a === undefined)) continue;
      const sum = parts.reduce<number>((s, a) => s + (a as number), 0);
      if (sum !== total)
        emit(
          'payment_plan_payment_components_do_not_sum_to_total',
          ['payment_plans', i, 'payments', k, 'total_amount'],
          `The amount components add up to ${sum}, not ${total}.`,
        );
    }
  }
}

type Span = { i: number; start: string; end: string | undefined; open: boolean };

/** Later-starting spans that begin strictly before an earlier one ends, or after an open-ended one begins. */
function overlaps(spans: Span[], onOverlap: (later: Span) => void) {
  const sorted = [...spans].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : a.i - b.i));
  for (let k = 1; k < sorted.length; k++) {
    const later = sorted[k];
    if (sorted.slice(0, k).some((e) => e.open || (e.end !== undefined && later.start < e.end) || e.start === later.start)) onOverlap(later);
  }
}

function contributionRules(account: Obj, emit: Emit) {
  const agreements: Span[] = [];
  for (const [a, i] of objects(account.contribution_agreements)) {
    const at: Path = ['contribution_agreements', i];
    const start = dayOf(a.active_period_start_date);
    const end = dayOf(a.active_period_end_date);
    if (start !== undefined && end !== undefined && end < start)
      emit('start_date_later_than_end_date', [...at, 'active_period_end_date'], 'active_period_end_date may not be before active_period_start_date.');
    if (start !== undefined) agreements.push({ i, start, end, open: !given(a.active_period_end_date) });
    const periods: Span[] = [];
    for (const [p, k] of objects(a.periods)) {
      const [ps, pe] = [dayOf(p.start_date), dayOf(p.end_date)];
      if (ps !== undefined && pe !== undefined && pe < ps)
        emit('start_date_later_than_end_date', [...at, 'periods', k, 'end_date'], 'end_date may not be before start_date.');
      if (ps !== undefined) periods.push({ i: k, start: ps, end: pe, open: false });
    }
    overlaps(periods, (p) =>
      emit('overlapping_contribution_periods', [...at, 'periods', p.i, 'start_date'], 'This contribution period overlaps an earlier one.'),
    );
  }
  overlaps(agreements, (a) =>
    emit(
      'overlapping_contribution_agreements',
      ['contribution_agreements', a.i, 'active_period_start_date'],
      'This contribution agreement overlaps an earlier one.',
    ),
  );
}

function commissionAndPartnerRules(account: Obj, emit: Emit) {
  for (const [c, i] of objects(account.commission_contracts)) {
    const at: Path = ['commission_contracts', i];
    const [from, to] = [dayOf(c.effective_from), dayOf(c.effective_to)];
    if (from !== undefined && to !== undefined && to < from)
      emit('start_date_later_than_end_date', [...at, 'effective_to'], 'effective_to may not be before effective_from.');
    if (given(c.commission_type) && !given(c.value)) emit('commission_type_requires_value', [...at, 'value'], 'commission_type (deprecated) needs value.');
    if (given(c.value) && given(c.unit_rate_uplift))
      emit('uplift_and_value_conflict', [...at, 'value'], 'Give unit_rate_uplift or value (deprecated), not both.');
  }
  for (const [p, i] of objects(account.partner_organisations)) {
    const [from, to] = [instant(p.valid_from), instant(p.valid_to)];
    if (from !== undefined && to !== undefined && to < from)
      emit('start_date_later_than_end_date', ['partner_organisations', i, 'valid_to'], 'valid_to may not be before valid_from.');
  }
}

/** Payment adequacy changes, payment plans, contribution agreements, commission contracts, partner organisations. */
export function paymentPlanRules(account: Obj, ctx: { today: string }, emit: Emit): void {
  adequacyRules(account, ctx.today, emit);
  planRules(account, emit);
  contributionRules(account, emit);
  commissionAndPartnerRules(account, emit);
}
