import { css, html, nothing, type PropertyValues, unsafeCSS } from 'lit';
import uPlot from 'uplot';
import uPlotCss from 'uplot/dist/uPlot.min.css?inline';
import { get } from '../api.js';
import { money, month, number, percent, t } from '../i18n.js';
import { ConsolePage, type Loaded, settle, show } from '../page.js';

interface RevenueMonth {
  month: string;
  mrr: string;
  new: string;
  expansion: string;
  contraction: string;
  churn: string;
  activeSubscribers: number;
  churnedSubscribers: number;
  churnRate: string | number;
  /** What write-offs dated in the month closed (issue 40). */
  writtenOff: string;
}
interface CurrencyRevenue {
  currency: string;
  current: { mrr: string; activeSubscribers: number };
  months: RevenueMonth[];
}

/** Series colours: distinct in both themes, and never the only cue (the table beside each chart has the numbers). */
const COLOURS = { mrr: '#2f5bea', new: '#1e8e3e', expansion: '#7b1fa2', contraction: '#e37400', churn: '#c5221f' };

/**
 * #/revenue: GET /console/api/revenue?months=24. Per currency: current MRR and active subscribers as headline
 * figures, a uPlot line of MRR per month, lines of new/expansion/contraction/churn, and a table with the same numbers.
 */
export class RevenuePage extends ConsolePage {
  static override styles = [
    ...ConsolePage.styles,
    unsafeCSS(uPlotCss),
    css`
      .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 26rem), 1fr)); gap: 1rem; }
      .chart { min-width: 0; }
      .legend { display: flex; flex-wrap: wrap; gap: 0.75rem; list-style: none; padding: 0; margin: 0.25rem 0; font-size: 0.85rem; }
      .swatch { display: inline-block; width: 0.8rem; height: 0.8rem; border-radius: 2px; margin-right: 0.3rem; vertical-align: middle; }
      dl.headline dd { font-size: 1.5rem; }
      .swatch.new { background: #1e8e3e; }
      .swatch.expansion { background: #7b1fa2; }
      .swatch.contraction { background: #e37400; }
      .swatch.churn { background: #c5221f; }
    `,
  ];
  static override properties = { ...ConsolePage.properties, data: { state: true } };
  declare data: Loaded<{ currencies: CurrencyRevenue[] }>;
  private charts: uPlot[] = [];
  private resizer?: ResizeObserver;

  constructor() {
    super();
    this.data = { state: 'loading' };
  }

  protected override async load() {
    this.data = await settle(get('/revenue?months=24'));
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    this.destroyCharts();
  }

  private destroyCharts() {
    for (const chart of this.charts) chart.destroy();
    this.charts = [];
    this.resizer?.disconnect();
    this.resizer = undefined;
  }

  protected override updated(changed: PropertyValues<this>) {
    super.updated(changed);
    if (changed.has('data') || changed.has('theme') || changed.has('lang')) this.drawCharts();
  }

  private drawCharts() {
    this.destroyCharts();
    if (this.data.state !== 'ok') return;
    const dark = this.theme === 'dark';
    const ink = dark ? '#e8eaed' : '#1a1a1a';
    const grid = dark ? '#3c4043' : '#e0e2e6';
    this.resizer = new ResizeObserver((entries) => {
      for (const entry of entries) {
        const chart = this.charts.find((candidate) => candidate.root.parentElement === entry.target);
        if (chart) chart.setSize({ width: Math.max(200, Math.floor(entry.contentRect.width)), height: 240 });
      }
    });
    for (const currency of this.data.value.currencies) {
      const labels = currency.months.map((row) => month(row.month));
      const xs = currency.months.map((_, index) => index);
      const axes = (format: (value: number) => string): uPlot.Axis[] => [
        {
          stroke: ink,
          grid: { stroke: grid },
          ticks: { stroke: grid },
          values: (_u, splits) => splits.map((split) => labels[split] ?? ''),
        },
        { stroke: ink, grid: { stroke: grid }, ticks: { stroke: grid }, size: 80, values: (_u, splits) => splits.map(format) },
      ];
      const compact = (value: number) =>
        new Intl.NumberFormat(this.lang || 'en', { notation: 'compact', maximumFractionDigits: 1 }).format(value);
      const make = (id: string, series: uPlot.Series[], data: number[][]) => {
        const target = this.renderRoot.querySelector<HTMLElement>(`#${id}`);
        if (!target) return;
        const width = Math.max(200, Math.floor(target.getBoundingClientRect().width || 400));
        const chart = new uPlot(
          {
            width,
            height: 240,
            legend: { show: false },
            cursor: { show: false },
            scales: { x: { time: false } },
            axes: axes(compact),
            series: [{}, ...series],
          },
          [xs, ...data] as uPlot.AlignedData,
          target,
        );
        this.charts.push(chart);
        this.resizer?.observe(target);
      };
      make(
        `mrr-${currency.currency}`,
        [{ label: 'MRR', stroke: dark ? '#8ab4f8' : COLOURS.mrr, width: 2, points: { show: true } }],
        [currency.months.map((row) => Number(row.mrr))],
      );
      make(
        `moves-${currency.currency}`,
        (['new', 'expansion', 'contraction', 'churn'] as const).map((key) => ({
          label: key,
          stroke: COLOURS[key],
          width: 2,
          points: { show: true },
        })),
        (['new', 'expansion', 'contraction', 'churn'] as const).map((key) => currency.months.map((row) => Number(row[key]))),
      );
    }
  }

  override render() {
    return html`
      <h1 tabindex="-1">${t('revenueTitle')}</h1>
      ${show(this.data, ({ currencies }) => (currencies.length === 0 ? html`<p>${t('noRevenue')}</p>` : html`${currencies.map((currency) => this.currencyBlock(currency))}`))}
    `;
  }

  private currencyBlock(currency: CurrencyRevenue) {
    const last = currency.months[currency.months.length - 1];
    const code = currency.currency;
    const legend = (['new', 'expansion', 'contraction', 'churn'] as const).map((key) => ({
      key,
      label: t(key === 'new' ? 'colNew' : key === 'expansion' ? 'colExpansion' : key === 'contraction' ? 'colContraction' : 'colChurn'),
    }));
    return html`<section aria-labelledby="revenue-${code}">
      <h2 id="revenue-${code}">${code}</h2>
      <dl class="facts headline">
        <div><dt>${t('currentMrr', { currency: code })}</dt><dd data-figure="mrr" data-currency=${code}>${money(currency.current.mrr, code)}</dd></div>
        <div><dt>${t('activeSubscribers')}</dt><dd data-figure="active-subscribers" data-currency=${code}>${number(currency.current.activeSubscribers)}</dd></div>
        ${last ? html`<div><dt>${t('churnRate')}</dt><dd>${percent(last.churnRate)}</dd></div>` : nothing}
      </dl>
      <div class="charts">
        <figure class="chart">
          <figcaption>${t('mrrChart', { currency: code })}</figcaption>
          <div id="mrr-${code}" role="img" aria-label=${t('mrrChart', { currency: code })}></div>
        </figure>
        <figure class="chart">
          <figcaption>${t('movementChart', { currency: code })}</figcaption>
          <ul class="legend" aria-hidden="true">
            ${legend.map((item) => html`<li><span class="swatch ${item.key}"></span>${item.label}</li>`)}
          </ul>
          <div id="moves-${code}" role="img" aria-label=${t('movementChart', { currency: code })}></div>
        </figure>
      </div>
      <div class="table-wrap"><table>
        <caption>${t('revenueCaption', { currency: code })}</caption>
        <thead><tr>
          <th scope="col">${t('colMonth')}</th><th scope="col" class="num">${t('colMrr')}</th><th scope="col" class="num">${t('colNew')}</th>
          <th scope="col" class="num">${t('colExpansion')}</th><th scope="col" class="num">${t('colContraction')}</th><th scope="col" class="num">${t('colChurn')}</th>
          <th scope="col" class="num">${t('colActiveSubscribers')}</th><th scope="col" class="num">${t('colChurnRate')}</th><th scope="col" class="num">${t('colWrittenOff')}</th>
        </tr></thead>
        <tbody>
          ${currency.months.map(
            (row) => html`<tr>
              <th scope="row">${month(row.month)}</th><td class="num">${money(row.mrr, code)}</td><td class="num">${money(row.new, code)}</td>
              <td class="num">${money(row.expansion, code)}</td><td class="num">${money(row.contraction, code)}</td><td class="num">${money(row.churn, code)}</td>
              <td class="num">${number(row.activeSubscribers)}</td><td class="num">${percent(row.churnRate)}</td><td class="num">${money(row.writtenOff, code)}</td>
            </tr>`,
          )}
        </tbody>
      </table></div>
    </section>`;
  }
}
customElements.define('console-revenue-page', RevenuePage);
