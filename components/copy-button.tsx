'use client';

import { useEffect, useState } from 'react';

/** Copies text to the clipboard and says so, politely, for a moment. */
export function CopyButton({
  text,
  label,
  className = 'button small',
}: {
  text: () => string;
  label: string;
  className?: string;
}) {
  const [status, setStatus] = useState<'idle' | 'copied' | 'failed'>('idle');

  useEffect(() => {
    if (status === 'idle') return;
    const timer = setTimeout(() => setStatus('idle'), 2000);
    return () => clearTimeout(timer);
  }, [status]);

  async function copy() {
    try {
      await navigator.clipboard.writeText(text());
      setStatus('copied');
    } catch {
      setStatus('failed');
    }
  }

  return (
    <>
      <button type="button" className={className} onClick={() => void copy()}>
        {label}
      </button>
      <span className="copy-status" role="status" aria-live="polite">
        {status === 'copied' ? 'Copied' : status === 'failed' ? 'Copy failed' : ''}
      </span>
    </>
  );
}
