// Template rendering throughput: cached parses beside parsing every time, in one run.
//
//   npm run bench:templates        (BENCH_SECONDS=3 per mode by default)
//
// A realistic marketing email (~5 KB of HTML, a dozen variables, `default`, `upcase`, `date`,
// arithmetic, an `if` and a `for` over three products): subject + HTML body, text part given.
// - cached: renderEmail with a cache key, as the campaign engine renders a step for each recipient;
// - uncached: renderEmail without a key, so every render parses the subject and body again.
// Both produce the same output; the ratio is what the parse cache saves.
// No goal is set: the ratio is told as every bench tells its figures, the median of the rounds'
// ratios with their spread (bench/support/goals.ts).
import { renderEmail, type TemplateVariables } from '../src/templates/index.ts';
import { benchRounds, figureLine } from './support/goals.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);

const product = (n: number) => `
  {% assign item = event.metadata.items[${n}] %}
  <tr>
    <td style="padding:12px;border-bottom:1px solid #eee"><img src="https://cdn.example.com/p/{{ item.sku }}.png" width="64" alt=""></td>
    <td style="padding:12px;border-bottom:1px solid #eee;font-family:Helvetica,Arial,sans-serif">
      <strong>{{ item.name }}</strong><br><span style="color:#666">SKU {{ item.sku | upcase }}</span>
    </td>
    <td style="padding:12px;border-bottom:1px solid #eee;text-align:right">{{ item.price | times: item.quantity | round: 2 }} €</td>
  </tr>`;

const html = `<!doctype html>
<html><head><meta charset="utf-8"><title>{{ campaign.name }}</title>
<style>body{margin:0;background:#f4f4f7} .button{background:#3869d4;color:#fff;border-radius:3px;padding:10px 18px;text-decoration:none}
 .footer{color:#a8aaaf;font-size:12px;text-align:center} h1{font-size:22px;color:#333}</style></head>
<body>
<table width="100%" cellpadding="0" cellspacing="0" role="presentation" style="background:#f4f4f7">
 <tr><td align="center" style="padding:24px">
  <table width="600" cellpadding="0" cellspacing="0" role="presentation" style="background:#fff;border-radius:6px">
   <tr><td style="padding:32px;font-family:Helvetica,Arial,sans-serif;color:#51545e">
    <h1>Hi {{ contact.firstName | default: "there" }},</h1>
    <p>Thanks for your order at {{ workspace.name }}. We received it on {{ "now" | date: "%B %-d, %Y" }}
     and it ships to {{ contact.attributes.city | default: "your address" }} within {{ contact.attributes.shippingDays | default: 3 }} days.</p>
    {% if contact.leadScore > 50 %}<p>As one of our best customers, you get <strong>free express shipping</strong>.</p>{% endif %}
    <table width="100%" cellpadding="0" cellspacing="0" role="presentation">
     ${product(0)}${product(1)}${product(2)}
     {% for item in event.metadata.items %}<!-- {{ forloop.index }}: {{ item.sku }} -->{% endfor %}
     <tr><td></td><td style="padding:12px;text-align:right"><strong>Total</strong></td>
      <td style="padding:12px;text-align:right"><strong>{{ event.metadata.total | minus: event.metadata.discount | round: 2 }} €</strong></td></tr>
    </table>
    <p style="text-align:center;margin:32px 0"><a class="button" href="https://shop.example.com/orders/{{ event.metadata.orderId }}?utm_campaign={{ campaign.id }}">View your order</a></p>
    <p>Questions? Reply to this email or write to support@example.com, quoting {{ message.id }}.</p>
    <p>— The {{ workspace.name }} team</p>
   </td></tr>
  </table>
  <p class="footer">You receive this email because you are a customer of {{ workspace.name }} ({{ contact.email }}).<br>
   <a href="{{ unsubscribe_url }}">Unsubscribe</a> · 1 Example Street, 75000 Paris</p>
 </td></tr>
</table>
</body></html>`;

const template = {
  subject:
    '{{ contact.firstName | default: "Hello" }}, your {{ workspace.name }} order {{ event.metadata.orderId }}',
  html,
  text: 'Hi {{ contact.firstName | default: "there" }}, your order {{ event.metadata.orderId }} is confirmed: https://shop.example.com/orders/{{ event.metadata.orderId }}\nUnsubscribe: {{ unsubscribe_url }}',
};

const variables: TemplateVariables = {
  contact: {
    email: 'ann@example.com',
    firstName: 'Ann',
    lastName: 'Lee',
    phone: null,
    attributes: { city: 'Lyon', shippingDays: 2 },
    leadScore: 72,
  },
  event: {
    type: 'order.placed',
    metadata: {
      orderId: 'ord_8812',
      total: 129.7,
      discount: 10,
      items: [
        { sku: 'tee-blue-m', name: 'T-shirt <blue>', price: 19.9, quantity: 2 },
        { sku: 'mug-01', name: 'Mug & saucer', price: 12.5, quantity: 1 },
        { sku: 'cap-red', name: 'Cap', price: 24.95, quantity: 3 },
      ],
    },
  },
  campaign: { id: 'cmp_01', name: 'Order confirmation' },
  workspace: { name: 'Acme' },
  message: { id: 'msg_01' },
  unsubscribe_url: 'https://switchboard.example.com/u/abc.def',
};

// The machine's speed drifts within seconds, so the two modes alternate in short slices (rounds);
// each figure is the total count over the total time, and each round gives a ratio.
const SLICES = Math.max(6, benchRounds());
const totals = { cached: { count: 0, ms: 0 }, uncached: { count: 0, ms: 0 } };
const ratios: number[] = [];

function runSlice(total: { count: number; ms: number }, cacheKey: string | undefined): number {
  for (let i = 0; i < 100; i++) renderEmail(template, variables, cacheKey); // warm-up, not counted
  const started = performance.now();
  const until = started + (SECONDS * 1000) / SLICES;
  let count = 0;
  while (performance.now() < until) {
    for (let i = 0; i < 50; i++) renderEmail(template, variables, cacheKey);
    total.count += 50;
    count += 50;
  }
  const ms = performance.now() - started;
  total.ms += ms;
  return count / ms;
}

const cachedOutput = renderEmail(template, variables, 'bench:v1:0');
const uncachedOutput = renderEmail(template, variables);
if (JSON.stringify(cachedOutput) !== JSON.stringify(uncachedOutput)) throw new Error('outputs differ');

for (let slice = 0; slice < SLICES; slice++) {
  const cachedRate = runSlice(totals.cached, 'bench:v1:0');
  ratios.push(cachedRate / runSlice(totals.uncached, undefined));
}
const cached = totals.cached.count / (totals.cached.ms / 1000);
const uncached = totals.uncached.count / (totals.uncached.ms / 1000);
console.log(`template: ${template.html.length} characters of HTML, subject and text part`);
console.log(`cached parse:       ${cached.toFixed(0)} emails/s (${(1e6 / cached).toFixed(0)} µs each)`);
console.log(`parse every time:   ${uncached.toFixed(0)} emails/s (${(1e6 / uncached).toFixed(0)} µs each)`);
console.log(figureLine('ratio cached / parse every time', ratios));
