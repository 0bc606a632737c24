import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { sampleWorkspace, workspacesAnswer } from '../../../test/workspace-fixtures';
import { knowledgeBaseOf, openDetail } from './detail-page-fixtures';

describe("Chatbot detail page: the member's role", () => {
  it('shows an agent the chatbot without its settings, picture or embed forms', async () => {
    localStorage.setItem('workspace', 'w-team');
    openDetail(knowledgeBaseOf(), { Workspaces: workspacesAnswer(sampleWorkspace({ role: 'AGENT' })) });
    expect(await screen.findByRole('heading', { level: 1, name: 'support bot' })).toBeTruthy();
    expect(await screen.findByText(/As an Agent, you can read this chatbot/)).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Save Picture' })).toBeNull();
    expect(screen.queryByLabelText('Chatbot Name')).toBeNull();
  });

  it('shows an editor the forms', async () => {
    localStorage.setItem('workspace', 'w-team');
    openDetail(knowledgeBaseOf(), { Workspaces: workspacesAnswer(sampleWorkspace({ role: 'EDITOR' })) });
    expect(await screen.findByRole('button', { name: 'Save Picture' })).toBeTruthy();
    expect(screen.queryByText(/you can read this chatbot/)).toBeNull();
  });

  it('shows a viewer no History tab', async () => {
    localStorage.setItem('workspace', 'w-team');
    openDetail(knowledgeBaseOf(), { Workspaces: workspacesAnswer(sampleWorkspace({ role: 'VIEWER' })) });
    expect(await screen.findByText(/As a Viewer, you can read this chatbot and its analytics/)).toBeTruthy();
    expect(screen.getByRole('tab', { name: 'Analytics' })).toBeTruthy();
    expect(screen.queryByRole('tab', { name: /History/ })).toBeNull();
  });
});
