// Placeholder: the emulator issue fills this entry (createEmulator and test helpers).
export {};
