import { z } from 'zod';
import { realisticAccount } from './schemas/fixtures';
import { energyAccountSchema } from './schemas/account';
import { validateAccount } from './schemas/validate';
import { accountRuleErrors } from './schemas/rules';
import { isValidPhone } from './schemas/formats';
const p = realisticAccount();
function rate(name: string, f: () => unknown) {
  for (let i = 0; i < 3000; i++) f();
  const t = performance.now(); let n = 0;
  while (performance.now() - t < 1500) { for (let i = 0; i < 100; i++) f(); n += 100; }
  console.log(name, Math.round(n / ((performance.now() - t) / 1000)));
}
rate('validate', () => validateAccount(p));
rate('zod', () => energyAccountSchema.safeParse(p));
rate('rules', () => accountRuleErrors(p, { today: '2026-11-23' }));
rate('phone x2', () => { isValidPhone('07123456789'); isValidPhone('02072343456'); });
rate('json clone', () => JSON.parse(JSON.stringify(p)));
