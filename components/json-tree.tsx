'use client';

import { type ReactNode, useState } from 'react';
import type { JsonSource } from '@/lib/domain/json-text';

/**
 * A collapsible, highlighted JSON tree of a document as written (its source
 * tree: numbers, escapes and key order kept), built on <details>/<summary>, so every
 * node opens and closes with the keyboard and screen readers announce it
 * without extra ARIA. `expandDepth` decides how much starts open; changing
 * `generation` re-mounts the tree to apply "expand all" / "collapse all".
 */

function Scalar({ value }: { value: JsonSource }) {
  // As written: 9007199254740993 and 1.0 are not what JSON.parse makes of them.
  const className =
    value.kind === 'string'
      ? 'json-string'
      : value.kind === 'number'
        ? 'json-number'
        : 'json-literal';
  return <span className={className}>{value.text}</span>;
}

function Key({ name }: { name: string | number | null }) {
  if (name === null) return null;
  return (
    <>
      {typeof name === 'number' ? (
        <span className="json-meta">{name}</span>
      ) : (
        <span className="json-key">{JSON.stringify(name)}</span>
      )}
      <span className="json-punct">: </span>
    </>
  );
}

/**
 * The least width a nested level keeps for its text. Each level indents by
 * its parent's; deep enough (a document nested 95 levels, all open), the
 * indentation filled the panel and text wrapped a character a line. A level
 * keeps this width instead, overflowing its parent: the tree scrolls
 * sideways (`.json-tree` is `overflow: auto`) and the text stays readable.
 */
export const JSON_LEVEL_MIN_WIDTH = '32ch';

function Node({
  name,
  value,
  depth,
  expandDepth,
  last,
}: {
  name: string | number | null;
  value: JsonSource;
  depth: number;
  expandDepth: number;
  last: boolean;
}): ReactNode {
  const comma = last ? null : <span className="json-punct">,</span>;
  if (value.kind !== 'object' && value.kind !== 'array') {
    return (
      <div className="json-leaf">
        <Key name={name} />
        <Scalar value={value} />
        {comma}
      </div>
    );
  }
  const isArray = value.kind === 'array';
  // In the order written, a repeated key as often as written.
  const entries: [string | number, JsonSource][] =
    value.kind === 'array'
      ? value.items.map((item, index) => [index, item])
      : value.members.map((member) => [member.key, member.value]);
  const [open, close] = isArray ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) {
    return (
      <div className="json-leaf">
        <Key name={name} />
        <span className="json-punct">
          {open}
          {close}
        </span>
        {comma}
      </div>
    );
  }
  const size = `${entries.length} ${isArray ? (entries.length === 1 ? 'item' : 'items') : entries.length === 1 ? 'key' : 'keys'}`;
  return (
    <details open={depth < expandDepth}>
      <summary>
        <Key name={name} />
        <span className="json-punct">{open}</span>
        <span className="json-meta"> {size} </span>
      </summary>
      <div className="json-children" style={{ minWidth: JSON_LEVEL_MIN_WIDTH }}>
        {entries.map(([key, child], index) => (
          <Node
            key={index}
            name={key}
            value={child}
            depth={depth + 1}
            expandDepth={expandDepth}
            last={index === entries.length - 1}
          />
        ))}
      </div>
      <div>
        <span className="json-punct">{close}</span>
        {comma}
      </div>
    </details>
  );
}

export function JsonTree({
  value,
  label,
  actions,
}: {
  value: JsonSource;
  label: string;
  /** Extra buttons for the toolbar (e.g. copy). */
  actions?: ReactNode;
}) {
  const [expandDepth, setExpandDepth] = useState(2);
  const [generation, setGeneration] = useState(0);
  const expandTo = (depth: number) => {
    setExpandDepth(depth);
    setGeneration((g) => g + 1);
  };
  return (
    <div>
      <div className="json-toolbar">
        {actions}
        <button type="button" className="button small" onClick={() => expandTo(Infinity)}>
          Expand all
        </button>
        <button type="button" className="button small" onClick={() => expandTo(1)}>
          Collapse all
        </button>
      </div>
      <div className="json-tree" role="group" aria-label={label} key={generation}>
        <Node name={null} value={value} depth={0} expandDepth={expandDepth} last />
      </div>
    </div>
  );
}
