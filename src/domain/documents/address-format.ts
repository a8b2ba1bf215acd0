/**
 * Postal addresses written the way the destination country's post expects them (issue 20 item 9): a
 * US address ends "Portland, OR 97209", a German one "10115 Berlin", a British one puts the postcode on
 * a line of its own. Suppliers type their country freely ("US", "USA", "United States"), locations
 * carry an ISO code too, so the country is recognised from either.
 */

export interface PostalAddress {
  readonly name?: string | null;
  readonly company?: string | null;
  readonly line1?: string | null;
  readonly line2?: string | null;
  readonly city?: string | null;
  readonly province?: string | null;
  /** Platform locations name the region by its code (an order's ship_to_address too). */
  readonly province_code?: string | null;
  readonly zip?: string | null;
  readonly country?: string | null;
  /** ISO 3166-1 alpha-2, when the source knows it (platform locations do). */
  readonly country_code?: string | null;
  readonly phone?: string | null;
  /** An order's ship_to_address carries its typed override here, the other parts then empty. */
  readonly text?: string | null;
}

/** How the lines between the street and the country are built, by the parts present. */
type LocalityStyle =
  /** "Portland, OR 97209" (US, Canada, and the like). */
  | "city-comma-province-zip"
  /** "Sydney NSW 2000" (Australia). */
  | "city-province-zip"
  /** "10115 Berlin", the province (if any) on the next line (most of Europe, the default). */
  | "zip-city"
  /** "London", then "SW1A 1AA" on its own line (United Kingdom, Ireland). */
  | "city-then-zip";

const STYLE_BY_CODE: Readonly<Record<string, LocalityStyle>> = {
  US: "city-comma-province-zip",
  CA: "city-comma-province-zip",
  PR: "city-comma-province-zip",
  PH: "city-comma-province-zip",
  AU: "city-province-zip",
  NZ: "city-then-zip",
  GB: "city-then-zip",
  IE: "city-then-zip",
};

/** Names and codes people write for the countries whose format differs from the default. */
const CODE_BY_NAME: Readonly<Record<string, string>> = {
  us: "US",
  usa: "US",
  "u.s.": "US",
  "u.s.a.": "US",
  "united states": "US",
  "united states of america": "US",
  ca: "CA",
  canada: "CA",
  pr: "PR",
  "puerto rico": "PR",
  ph: "PH",
  philippines: "PH",
  au: "AU",
  australia: "AU",
  nz: "NZ",
  "new zealand": "NZ",
  gb: "GB",
  uk: "GB",
  "united kingdom": "GB",
  "great britain": "GB",
  england: "GB",
  scotland: "GB",
  wales: "GB",
  "northern ireland": "GB",
  ie: "IE",
  ireland: "IE",
};

function present(value: string | null | undefined): string | null {
  const trimmed = value?.trim();
  return trimmed ? trimmed : null;
}

/** The ISO code of the address's country when it is one we format specially, else null. */
export function countryCodeOf(address: PostalAddress): string | null {
  const code = present(address.country_code)?.toUpperCase();
  if (code) return code;
  const country = present(address.country)?.toLowerCase();
  return country ? (CODE_BY_NAME[country] ?? null) : null;
}

function localityLines(
  style: LocalityStyle,
  city: string | null,
  province: string | null,
  zip: string | null,
) {
  const join = (...parts: (string | null)[]) => parts.filter((p) => p !== null).join(" ");
  switch (style) {
    case "city-comma-province-zip": {
      const tail = join(province, zip);
      return [city && tail ? `${city}, ${tail}` : city || tail];
    }
    case "city-province-zip":
      return [join(city, province, zip)];
    case "city-then-zip":
      return [city, province, zip];
    case "zip-city":
      return [join(zip, city), province];
  }
}

/**
 * The address as printed lines, empty parts left out: name, company, street lines, the locality in the
 * country's order, the country, the phone.
 */
export function formatAddressLines(address: PostalAddress): string[] {
  const code = countryCodeOf(address);
  const style = (code && STYLE_BY_CODE[code]) || "zip-city";
  const lines = [
    present(address.name),
    present(address.company),
    present(address.line1),
    present(address.line2),
    ...localityLines(
      style,
      present(address.city),
      present(address.province) ?? present(address.province_code),
      present(address.zip),
    ),
    present(address.country) ?? present(address.country_code),
    present(address.phone),
  ];
  return lines.filter((line): line is string => line !== null && line !== "");
}

/** Free text cut into its non-empty lines (an address typed into one field). */
export function splitLines(value: string): string[] {
  return value
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "");
}

/** Where an order ships, as printed lines: the typed override, else the address, else the location's name. */
export function shipToLines(order: {
  readonly ship_to_address: PostalAddress | string | null;
  readonly location: { readonly name: string } | null;
  readonly store: { readonly name: string };
}): string[] {
  const ship = order.ship_to_address;
  if (typeof ship === "string" && ship.trim() !== "") return splitLines(ship);
  if (ship && typeof ship === "object") {
    const typed = present(ship.text);
    const lines = typed ? splitLines(typed) : formatAddressLines(ship);
    if (lines.length > 0) return lines;
  }
  return [order.location?.name ?? order.store.name];
}
