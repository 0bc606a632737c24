// What the public page and the widget show for an unknown or inactive chatbot when the server sent no
// message of its own (or the address names no chatbot). The web app cannot import the services, so
// this is a copy of PUBLIC_CHATBOT_NOT_FOUND (services/common/src/public-chatbot.ts) that
// test/shared-copies.test.ts keeps equal. Plain data: the widget bundles it too.
export const PUBLIC_CHATBOT_NOT_FOUND = 'Chatbot not found or inactive';
