import { markData } from './i18n';

/**
 * Makes elements whose text is set as text, never as HTML: every Company string in the window
 * goes through it. `data` marks the text as data (a name, an amount) rather than a message.
 */
export function textElements(doc: Document) {
  return <K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, cls?: string, data = false): HTMLElementTagNameMap[K] => {
    const node = doc.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (cls) node.className = cls;
    if (data) markData(node);
    return node;
  };
}

export type TextElements = ReturnType<typeof textElements>;
