import { toolAnnotationsSchema, toolDescriptionSchema, type ToolAnnotations } from '../protocol/tool-call';

/**
 * The tool's own words for the approval card (docs/mcp-gateway.md, "What the card shows"): its
 * description and annotations as the upstream's tools/list gave them, kept only where they pass
 * the rules of a tool_call_request (tool-call.ts). The upstream is not trusted: a description
 * that is too long or carries control or bidi-control characters is dropped whole rather than cut
 * or cleaned into something it did not say, and only the known annotations travel, each only when
 * valid. Line breaks and tabs are folded into single spaces first: ordinary descriptions have them.
 */
export interface ToolWords {
  description?: string;
  annotations?: ToolAnnotations;
}

const ANNOTATION_KEYS = Object.keys(toolAnnotationsSchema.shape) as Array<keyof ToolAnnotations>;

export function toolWords(tool: { description?: unknown; annotations?: unknown }): ToolWords {
  const words: ToolWords = {};
  const description = descriptionOf(tool.description);
  if (description !== undefined) words.description = description;
  const annotations = annotationsOf(tool.annotations);
  if (annotations !== undefined) words.annotations = annotations;
  return words;
}

function descriptionOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const folded = value.replace(/[\t\n\v\f\r]+/g, ' ').trim();
  if (folded === '') return undefined;
  const checked = toolDescriptionSchema.safeParse(folded);
  return checked.success ? checked.data : undefined;
}

function annotationsOf(value: unknown): ToolAnnotations | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const shape = toolAnnotationsSchema.shape;
  const kept: Record<string, unknown> = {};
  for (const key of ANNOTATION_KEYS) {
    const checked = shape[key].safeParse((value as Record<string, unknown>)[key]);
    if (checked.success && checked.data !== undefined) kept[key] = checked.data;
  }
  return Object.keys(kept).length === 0 ? undefined : kept;
}
