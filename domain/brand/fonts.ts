// The font families the brand kit accepts for `headingFont` and `bodyFont`: the families bundled with the service
// (infra/visuals/contract.ts maps each to its @fontsource package). Names are compared case-insensitively and
// stored as written here.
export const fontFamilyNames = [
  'Inter',
  'Roboto',
  'Open Sans',
  'Lato',
  'Montserrat',
  'Poppins',
  'Playfair Display',
  'Merriweather',
  'Source Sans 3',
  'Raleway',
  'Oswald',
  'Nunito',
  'DM Sans',
  'Space Grotesk',
  'IBM Plex Sans',
  'Work Sans',
  'Lora',
  'JetBrains Mono',
] as const;
export type FontFamily = (typeof fontFamilyNames)[number];
/** Used where the brand kit names no font. */
export const defaultHeadingFont: FontFamily = 'Inter';
export const defaultBodyFont: FontFamily = 'Inter';

/** The installed family matching `name` case-insensitively, or null. */
export function installedFontFamily(name: string): FontFamily | null {
  const wanted = name.trim().toLowerCase();
  return fontFamilyNames.find((family) => family.toLowerCase() === wanted) ?? null;
}
