// How the relay's advice writes a scanrelay command: as typed in a checkout, `npx scanrelay <command>` (package.json's
// bin, the built dist/scanrelay.mjs). README says once how the image runs the same command.
export const typed = (command: string): string => `npx scanrelay ${command}`;
