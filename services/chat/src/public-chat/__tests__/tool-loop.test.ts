import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { ActionToolSchema } from '@parley/proto/parley/chatbot/v1/actions_pb.js';
import { HandoffSchema, LeadFormSchema, PublicChatbotSchema } from '@parley/proto/parley/chatbot/v1/chatbot_pb.js';
import { McpToolSchema } from '@parley/proto/parley/chatbot/v1/mcp_servers_pb.js';
import { chatbotTools, loopHoldTokens, MAX_TOOL_CALLS, maxToolCalls, toolDefinitions } from '../tool-loop.ts';
import { telegram } from '../channels/telegram.ts';
import { widget } from '../channels/widget.ts';

const chatbot = (parts: { actions?: string[]; mcp?: string[]; handoff?: boolean; lead?: boolean }) =>
  create(PublicChatbotSchema, {
    actions: (parts.actions ?? []).map((name) => create(ActionToolSchema, { name, whenToUse: 'x' })),
    mcpTools: (parts.mcp ?? []).map((name) =>
      create(McpToolSchema, { name, description: 'y', server: 'shop', inputSchema: { type: 'object', properties: {} } }),
    ),
    handoff: create(HandoffSchema, { enabled: parts.handoff ?? false }),
    leadForm: create(LeadFormSchema, { name: 'off', email: parts.lead ? 'required' : 'off', phone: 'off' }),
  });

describe('a chatbot’s tools', () => {
  it('are none for a chatbot without actions, MCP tools, handoff or lead form', () => {
    expect(chatbotTools(chatbot({}), widget)).toEqual([]);
  });

  it('are its actions, its MCP tools, then the built-in ones, a name taken once', () => {
    const tools = chatbotTools(
      chatbot({ actions: ['handoff', 'look_up'], mcp: ['shop_status', 'look_up'], handoff: true, lead: true }),
      widget,
    );
    expect(tools.map((t) => [t.kind, t.name])).toEqual([
      ['action', 'handoff'],
      ['action', 'look_up'],
      ['mcp', 'shop_status'],
      ['built-in', 'show_lead_form'],
    ]);
    const defs = toolDefinitions(tools);
    expect(defs[2]).toEqual({ name: 'shop_status', description: 'y', parameters: { type: 'object', properties: {} } });
    expect(defs[3].parameters).toEqual({ type: 'object', properties: {}, additionalProperties: false });
  });

  it('leave the lead form out where the channel shows text alone, and keep the handoff, which a messaging channel offers in words', () => {
    const both = chatbot({ handoff: true, lead: true });
    expect(chatbotTools(both, widget).map((t) => t.name)).toEqual(['handoff', 'show_lead_form']);
    expect(chatbotTools(both, telegram).map((t) => t.name)).toEqual(['handoff']);
    expect(chatbotTools(chatbot({ lead: true }), telegram)).toEqual([]);
  });

  it('with built-in ones only, call each once, under a hold far below a loop of actions', () => {
    const builtIn = chatbotTools(chatbot({ handoff: true, lead: true }), widget);
    const withAction = chatbotTools(chatbot({ actions: ['look_up'], handoff: true }), widget);
    expect(maxToolCalls(builtIn)).toBe(2);
    expect(maxToolCalls(withAction)).toBe(MAX_TOOL_CALLS);
    const small = loopHoldTokens(1000, builtIn);
    const large = loopHoldTokens(1000, withAction);
    expect(small.calls).toBe(3);
    expect(large.calls).toBe(MAX_TOOL_CALLS + 1);
    expect(small.promptTokens).toBeLessThan(large.promptTokens / 5);
  });
});
