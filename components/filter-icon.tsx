/** The funnel on every "filter on this value" control (table cells, detail fields). */
export function FilterIcon() {
  return (
    <svg viewBox="0 0 16 16" width="12" height="12" aria-hidden="true">
      <path d="M1.5 2h13l-5 6v5l-3 1.5V8z" fill="currentColor" />
    </svg>
  );
}
