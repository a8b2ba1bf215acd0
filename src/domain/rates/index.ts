/**
 * The rates module's public entry: a store's tax rates and exchange rates, as the admin API sets them.
 */

export {
  type ExchangeRateInput,
  type ExchangeRateView,
  listExchangeRates,
  replaceExchangeRates,
} from "./exchange-rates.ts";
export { listTaxRates, replaceTaxRates, type TaxRateInput, type TaxRateView } from "./tax-rates.ts";
