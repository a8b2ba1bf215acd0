// `npm run shopify-standin`: the stand-in alone, for trying the connector on one machine. It seeds one
// shop (STANDIN_PRODUCTS × 2 variants at 3 locations) and prints what to put in the service's environment.
import { startShopifyStandin } from "./index.ts";

const standin = await startShopifyStandin({
  port: Number(process.env.PORT ?? 4500),
  apiKey: process.env.SHOPIFY_API_KEY,
  apiSecret: process.env.SHOPIFY_API_SECRET,
});
const { shop, accessToken } = standin.addShop(process.env.STANDIN_SHOP ?? "stand-in.myshopify.com");
shop.seed({ products: Number(process.env.STANDIN_PRODUCTS ?? 50), variantsPerProduct: 2, locations: 3 });
console.log(`SHOPIFY_ADMIN_ORIGIN=${standin.origin}`);
console.log(`SHOPIFY_API_KEY=${standin.apiKey} SHOPIFY_API_SECRET=${standin.apiSecret}`);
console.log(`shop ${shop.domain}, custom app access token ${accessToken}`);
process.on("SIGINT", () => void standin.close().then(() => process.exit(0)));
