import type { Clock } from "../../clock.ts";
import type { Db } from "../../db/database.ts";
import { ean13 } from "./barcode.ts";
import { createSimLocations, createSimProducts, type NewSimProduct } from "./catalog.ts";

/**
 * The demo catalog of `seed: "demo"` (docs/decisions.md, "Catalog mirror and the simulated
 * platform"): 28 products, 90 variants with SKUs and EAN-13 barcodes, 3 active locations (the third
 * is hidden by the store's settings), every item stocked at every location, a few items without
 * inventory tracking (gift cards, gift wrapping), a draft and an archived product. Deterministic, so
 * tests can rely on it.
 */

interface ProductSpec {
  title: string;
  code: string;
  vendor: string;
  type: string;
  option: string;
  values: string[];
  price: string;
  cost: string;
  weight: number;
  tags: string[];
  status?: "active" | "draft" | "archived";
  tracked?: boolean;
}

const SPECS: ProductSpec[] = [
  {
    title: "Classic Tee",
    code: "TEE",
    vendor: "Northwind Apparel",
    type: "T-Shirts",
    option: "Size",
    values: ["S", "M", "L", "XL"],
    price: "24.00",
    cost: "8.50",
    weight: 180,
    tags: ["apparel", "cotton"],
  },
  {
    title: "Hooded Sweatshirt",
    code: "HOOD",
    vendor: "Northwind Apparel",
    type: "Sweatshirts",
    option: "Size",
    values: ["S", "M", "L", "XL"],
    price: "58.00",
    cost: "21.75",
    weight: 520,
    tags: ["apparel"],
  },
  {
    title: "Canvas Cap",
    code: "CAP",
    vendor: "Northwind Apparel",
    type: "Hats",
    option: "Color",
    values: ["Black", "Khaki", "Navy"],
    price: "22.00",
    cost: "6.40",
    weight: 90,
    tags: ["apparel", "accessories"],
  },
  {
    title: "Merino Beanie",
    code: "BEAN",
    vendor: "Northwind Apparel",
    type: "Hats",
    option: "Color",
    values: ["Charcoal", "Rust", "Forest"],
    price: "28.00",
    cost: "9.10",
    weight: 70,
    tags: ["apparel", "wool"],
  },
  {
    title: "Rain Shell Jacket",
    code: "SHELL",
    vendor: "Northwind Apparel",
    type: "Jackets",
    option: "Size",
    values: ["S", "M", "L"],
    price: "129.00",
    cost: "47.20",
    weight: 410,
    tags: ["apparel", "outerwear"],
  },
  {
    title: "Wool Hiking Socks",
    code: "SOCK",
    vendor: "Summit Gear",
    type: "Socks",
    option: "Size",
    values: ["S", "M", "L", "XL"],
    price: "18.00",
    cost: "5.25",
    weight: 60,
    tags: ["outdoor", "wool"],
  },
  {
    title: "Trail Backpack 30L",
    code: "PACK30",
    vendor: "Summit Gear",
    type: "Bags",
    option: "Color",
    values: ["Moss", "Slate", "Ember", "Sand"],
    price: "149.00",
    cost: "62.00",
    weight: 1100,
    tags: ["outdoor", "bags"],
  },
  {
    title: "Insulated Bottle 750ml",
    code: "BTL",
    vendor: "Summit Gear",
    type: "Drinkware",
    option: "Color",
    values: ["Steel", "Black", "Glacier"],
    price: "34.00",
    cost: "11.30",
    weight: 380,
    tags: ["outdoor", "drinkware"],
  },
  {
    title: "Camp Stove",
    code: "STOVE",
    vendor: "Summit Gear",
    type: "Camping",
    option: "Fuel",
    values: ["Butane", "Multi-fuel", "Alcohol"],
    price: "89.00",
    cost: "37.45",
    weight: 650,
    tags: ["outdoor", "camping"],
  },
  {
    title: "Headlamp 400",
    code: "LAMP",
    vendor: "Summit Gear",
    type: "Lighting",
    option: "Color",
    values: ["Orange", "Black", "Teal", "Red"],
    price: "42.00",
    cost: "15.80",
    weight: 95,
    tags: ["outdoor"],
  },
  {
    title: "Trekking Poles",
    code: "POLE",
    vendor: "Summit Gear",
    type: "Camping",
    option: "Length",
    values: ["110cm", "125cm", "135cm"],
    price: "79.00",
    cost: "30.15",
    weight: 520,
    tags: ["outdoor"],
  },
  {
    title: "Sleeping Bag -5C",
    code: "SBAG",
    vendor: "Summit Gear",
    type: "Camping",
    option: "Size",
    values: ["Regular", "Long", "Wide"],
    price: "219.00",
    cost: "96.00",
    weight: 1450,
    tags: ["outdoor", "camping"],
  },
  {
    title: "Stoneware Mug",
    code: "MUG",
    vendor: "Hearth & Co",
    type: "Kitchen",
    option: "Glaze",
    values: ["Speckled", "Sage", "Midnight", "Clay"],
    price: "19.00",
    cost: "5.60",
    weight: 420,
    tags: ["home", "kitchen"],
  },
  {
    title: "Linen Tea Towel",
    code: "TOWEL",
    vendor: "Hearth & Co",
    type: "Kitchen",
    option: "Color",
    values: ["Natural", "Indigo", "Terracotta"],
    price: "16.00",
    cost: "4.35",
    weight: 110,
    tags: ["home", "linen"],
  },
  {
    title: "Cast Iron Skillet",
    code: "SKIL",
    vendor: "Hearth & Co",
    type: "Cookware",
    option: "Size",
    values: ["8in", "10in", "12in"],
    price: "45.00",
    cost: "18.90",
    weight: 2300,
    tags: ["home", "kitchen"],
  },
  {
    title: "Soy Candle",
    code: "CNDL",
    vendor: "Hearth & Co",
    type: "Candles",
    option: "Scent",
    values: ["Cedar", "Fig", "Sea Salt", "Amber"],
    price: "26.00",
    cost: "7.95",
    weight: 340,
    tags: ["home"],
  },
  {
    title: "Wool Throw Blanket",
    code: "THROW",
    vendor: "Hearth & Co",
    type: "Textiles",
    option: "Color",
    values: ["Oat", "Heather Grey", "Mustard"],
    price: "119.00",
    cost: "44.00",
    weight: 1200,
    tags: ["home", "wool"],
  },
  {
    title: "Walnut Serving Board",
    code: "BOARD",
    vendor: "Hearth & Co",
    type: "Kitchen",
    option: "Size",
    values: ["Small", "Medium", "Large"],
    price: "64.00",
    cost: "23.40",
    weight: 900,
    tags: ["home", "kitchen"],
  },
  {
    title: "House Blend Coffee",
    code: "HOUSE",
    vendor: "Roastery Row",
    type: "Coffee",
    option: "Size",
    values: ["250g", "500g", "1kg"],
    price: "14.00",
    cost: "4.80",
    weight: 260,
    tags: ["coffee", "food"],
  },
  {
    title: "Single Origin Ethiopia",
    code: "ETH",
    vendor: "Roastery Row",
    type: "Coffee",
    option: "Size",
    values: ["250g", "500g", "1kg"],
    price: "18.00",
    cost: "6.95",
    weight: 260,
    tags: ["coffee", "food"],
  },
  {
    title: "Decaf Colombia",
    code: "DECAF",
    vendor: "Roastery Row",
    type: "Coffee",
    option: "Grind",
    values: ["Whole Bean", "Espresso", "Filter"],
    price: "16.00",
    cost: "5.90",
    weight: 260,
    tags: ["coffee", "food"],
  },
  {
    title: "Pour-Over Kettle",
    code: "KETL",
    vendor: "Roastery Row",
    type: "Brewing",
    option: "Finish",
    values: ["Matte Black", "Copper", "Steel"],
    price: "72.00",
    cost: "28.00",
    weight: 980,
    tags: ["coffee", "brewing"],
  },
  {
    title: "Paper Filters",
    code: "FILT",
    vendor: "Roastery Row",
    type: "Brewing",
    option: "Size",
    values: ["01", "02", "03"],
    price: "7.50",
    cost: "1.85",
    weight: 120,
    tags: ["coffee", "brewing"],
  },
  {
    title: "Ceramic Dripper",
    code: "DRIP",
    vendor: "Roastery Row",
    type: "Brewing",
    option: "Color",
    values: ["White", "Black", "Blush"],
    price: "29.00",
    cost: "9.40",
    weight: 390,
    tags: ["coffee", "brewing"],
  },
  {
    title: "Seasonal Blend (Preview)",
    code: "SEAS",
    vendor: "Roastery Row",
    type: "Coffee",
    option: "Size",
    values: ["250g", "500g", "1kg"],
    price: "17.00",
    cost: "6.10",
    weight: 260,
    tags: ["coffee"],
    status: "draft",
  },
  {
    title: "Retired Enamel Mug",
    code: "ENAM",
    vendor: "Hearth & Co",
    type: "Kitchen",
    option: "Color",
    values: ["White", "Blue"],
    price: "15.00",
    cost: "4.10",
    weight: 250,
    tags: ["home"],
    status: "archived",
  },
  {
    title: "Gift Card",
    code: "GIFT",
    vendor: "Stockroom Demo",
    type: "Gift Cards",
    option: "Denomination",
    values: ["$25", "$50", "$100"],
    price: "25.00",
    cost: "0",
    weight: 0,
    tags: ["gift"],
    tracked: false,
  },
  {
    title: "Gift Wrapping",
    code: "WRAP",
    vendor: "Stockroom Demo",
    type: "Services",
    option: "Style",
    values: ["Kraft", "Festive", "Premium"],
    price: "5.00",
    cost: "0.75",
    weight: 0,
    tags: ["service"],
    tracked: false,
  },
];

function code(value: string): string {
  return value
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, "")
    .slice(0, 6);
}

export function demoProducts(): NewSimProduct[] {
  let serial = 0;
  return SPECS.map((spec) => ({
    title: spec.title,
    vendor: spec.vendor,
    productType: spec.type,
    status: spec.status ?? "active",
    tags: spec.tags,
    options: [{ name: spec.option, position: 1, values: spec.values }],
    variants: spec.values.map((value, i) => {
      serial++;
      const denomination = spec.code === "GIFT" ? value.replace("$", "") : null;
      return {
        title: value,
        sku: `${spec.code}-${code(value)}`,
        barcode: ean13(`20000${String(serial).padStart(7, "0")}`),
        price: denomination ? `${denomination}.00` : spec.price,
        compareAtPrice: i === 0 && spec.code === "SHELL" ? "149.00" : null,
        unitCost: spec.cost,
        weightGrams: spec.weight,
        tracked: spec.tracked ?? true,
        taxable: spec.code !== "GIFT",
      };
    }),
  }));
}

export const DEMO_LOCATIONS = [
  {
    name: "Main Warehouse",
    address: {
      line1: "1200 NW Front Ave",
      city: "Portland",
      province_code: "OR",
      zip: "97209",
      country: "United States",
      country_code: "US",
      phone: "+1 503 555 0100",
    },
  },
  {
    name: "Downtown Shop",
    address: {
      line1: "415 SW Alder St",
      city: "Portland",
      province_code: "OR",
      zip: "97204",
      country: "United States",
      country_code: "US",
      phone: "+1 503 555 0144",
    },
  },
  {
    // Hidden by the store's settings (not offered through the API).
    name: "Overflow Storage",
    fulfillmentService: "manual",
    address: {
      line1: "88 Industrial Way",
      city: "Gresham",
      province_code: "OR",
      zip: "97030",
      country: "United States",
      country_code: "US",
      phone: null,
    },
  },
];

/** Seeds the demo catalog on the simulated platform; returns the location ids (the last one hidden). */
export async function seedDemoPlatform(
  trx: Db,
  clock: Clock,
  storeId: number,
  currency: string,
): Promise<{ locationIds: number[]; hiddenLocationId: number }> {
  const locationIds = await createSimLocations(trx, clock, storeId, DEMO_LOCATIONS);
  await createSimProducts(trx, clock, storeId, currency, demoProducts(), (c) => {
    if (!c.tracked) return { available: 0 };
    // Deterministic quantities between 6 and 45; the warehouse holds more than the shop.
    const base = ((c.productIndex * 7 + c.variantIndex * 13 + c.locationIndex * 5) % 40) + 6;
    return { available: c.locationIndex === 0 ? base + 20 : base };
  });
  return { locationIds, hiddenLocationId: locationIds[2] };
}

/** An `empty` shop still has one location (a store needs one for its orders). */
export async function seedEmptyPlatform(trx: Db, clock: Clock, storeId: number): Promise<number[]> {
  return createSimLocations(trx, clock, storeId, [
    { name: "Main Warehouse", address: DEMO_LOCATIONS[0].address },
  ]);
}
